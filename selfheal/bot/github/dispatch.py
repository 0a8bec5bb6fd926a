"""Start the heal workflow on a repository's own Actions runners (`workflow_dispatch`).

    POST /repos/{owner}/{repo}/actions/workflows/{workflow_file}/dispatches
         {"ref": <branch whose copy of the workflow runs>, "inputs": {...}, "return_run_details": true}

`return_run_details` (GitHub, February 2026) makes GitHub answer with the new run's URL; a server that
does not know the parameter (an older GitHub Enterprise Server) refuses it with 400/422, and the
dispatch is sent once more without it. Only the inputs the workflow declares may be sent: heal.yml
declares `ref` and `test-command`.
"""

from __future__ import annotations

from dataclasses import dataclass

from github import GithubException

from selfheal.bot.exceptions import GitHubError
from selfheal.bot.github.client import GitHubClient, mapped


@dataclass(frozen=True)
class Dispatched:
    workflow: str  # the workflow's file name
    ref: str  # the branch whose copy of the workflow file runs
    inputs: dict[str, str]
    run_url: str  # the run when GitHub says which, else the workflow's list of runs


@mapped("start the heal workflow")
def dispatch_workflow(
    client: GitHubClient, workflow_file: str, ref: str, inputs: dict[str, str]
) -> Dispatched:
    repo = client.repository
    try:
        workflow = repo.get_workflow(workflow_file)
    except GithubException as exc:
        if exc.status == 404:
            raise GitHubError(
                f"{client.repo_name} has no workflow {workflow_file}: add .github/workflows/{workflow_file} "
                "with an `on: workflow_dispatch` trigger (see selfheal's heal.yml)",
                status=404,
            ) from exc
        raise
    runs = f"{repo.html_url}/actions/workflows/{workflow_file}"
    try:
        run = workflow.create_dispatch(ref, inputs, throw=True, return_run_details=True)
        url = run.html_url if run is not True else runs
    except GithubException as exc:
        message = exc.data.get("message", "") if isinstance(exc.data, dict) else ""
        if exc.status == 422 and "Unexpected inputs" in str(message):
            raise GitHubError(
                f"{client.repo_name}'s {workflow_file} does not take the inputs the server forwards "
                f"({', '.join(sorted(inputs))}): {message}. Update it from selfheal's heal.yml, which "
                "declares them, so that the heal runs with the server's model and budgets",
                status=422,
            ) from exc
        if exc.status not in (400, 422) or "return_run_details" not in str(message):
            raise
        workflow.create_dispatch(ref, inputs, throw=True)
        url = runs
    return Dispatched(workflow_file, ref, dict(inputs), url or runs)
