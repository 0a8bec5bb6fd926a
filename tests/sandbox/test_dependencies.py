from __future__ import annotations

import pytest

from selfheal.sandbox.dependencies import (
    build_requirements,
    declared_requirements,
    default_image,
    plan_setup,
    python_version_for,
)
from selfheal.sandbox.exceptions import SetupFailed, SetupRefused


def write(root, files):
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def test_nothing_declared_means_nothing_to_install(tmp_path):
    write(tmp_path, {"pkg/a.py": "x = 1\n", "pyproject.toml": "[project]\nname = 'pkg'\n"})
    plan = plan_setup(tmp_path)
    assert plan.empty and plan.describe() == "nothing"


def test_requirement_files_and_static_pyproject_dependencies(tmp_path):
    write(
        tmp_path,
        {
            "requirements.txt": "requests\n",
            "requirements-dev.txt": "pytest-mock\n",
            "pyproject.toml": """
[project]
name = "my_pkg"
dependencies = ["attrs>=22", "six"]
[project.optional-dependencies]
test = ["hypothesis", "My-Pkg[extra]"]
docs = ["sphinx"]
""",
        },
    )
    plan = plan_setup(tmp_path)
    assert (plan.requirement_files, plan.requirements, plan.install_project, plan.local) == (
        ("requirements.txt", "requirements-dev.txt"),
        ("attrs>=22", "six", "hypothesis"),
        None,
        (),
    )
    assert dict(plan.filtered) == {"requirements.txt": "requests\n", "requirements-dev.txt": "pytest-mock\n"}

    assert plan.pip_arguments() == [
        "-r",
        "requirements.txt",
        "-r",
        "requirements-dev.txt",
        "attrs>=22",
        "six",
        "hypothesis",
    ]


@pytest.mark.parametrize(
    "files",
    [
        {"setup.py": "from setuptools import setup\nsetup()\n"},
        {"pyproject.toml": "[project]\nname = 'x'\ndynamic = ['dependencies']\n"},
    ],
)
def test_dynamic_metadata_installs_the_project_itself(tmp_path, files):
    write(tmp_path, files)
    assert plan_setup(tmp_path).install_project == "."


def test_dynamic_project_with_test_extras(tmp_path):
    write(
        tmp_path,
        {
            "pyproject.toml": "[project]\nname = 'x'\ndynamic = ['dependencies']\n"
            "[project.optional-dependencies]\ntests = ['pytest']\n"
        },
    )
    assert plan_setup(tmp_path).install_project == ".[tests]"


@pytest.mark.parametrize(
    ("files", "version"),
    [
        ({}, "3.12"),
        ({".python-version": "3.10.4\n"}, "3.10"),
        ({"pyproject.toml": "[project]\nrequires-python = '>=3.9'\n"}, "3.12"),
        ({"pyproject.toml": "[project]\nrequires-python = '>=3.8,<3.11'\n"}, "3.10"),
        ({"pyproject.toml": "[project]\nrequires-python = '>=3.13'\n"}, "3.13"),
        ({"pyproject.toml": "[project]\nrequires-python = 'not a spec'\n"}, "3.12"),
    ],
)
def test_the_image_matches_the_python_the_repo_declares(tmp_path, files, version):
    write(tmp_path, files)
    assert python_version_for(tmp_path) == version
    assert default_image(tmp_path) == f"python:{version}-slim"


def test_local_paths_in_requirement_files_are_the_repositorys_own_code(tmp_path):
    """They are built without a network (sandbox/docker/setup.py): left out of the files pip reads with one,
    and listed as local projects, with the extras every mention asks for."""
    write(tmp_path, {
        "setup.py": "from setuptools import setup\nsetup()\n",
        "requirements.txt": "-e .[test]\nrequests==2.31  # pinned\n-r requirements/base.txt\n",
        "requirements/base.txt": "./libs/helper\n-c ../constraints.txt\nfile:./vendored\nattrs\n",
        "constraints.txt": "attrs<24\n../outside\n",
        "libs/helper/setup.py": "",
        "vendored/setup.py": "",
    })  # fmt: skip
    plan = plan_setup(tmp_path)
    # the copies pip reads: each line as classified, at its own line number, no comment
    assert dict(plan.filtered) == {
        "requirements.txt": "\nrequests==2.31\n-r requirements/base.txt\n",
        "requirements/base.txt": "\n-c ../constraints.txt\n\nattrs\n",
        "constraints.txt": "attrs<24\n\n",
    }
    assert plan.local_projects == (".[test]", "libs/helper", "vendored", "../outside")
    assert plan.pip_arguments() == ["-r", "requirements.txt", "-r", "requirements/base.txt"]
    assert plan.describe() == (
        "-r requirements.txt -r requirements/base.txt '.[test]' libs/helper vendored ../outside"
    )


def test_an_included_file_outside_the_workspace_is_not_read(tmp_path):
    """Nor handed to pip: in the set-up container the path would lead to other files than the
    repository's (the workspace mount, selfheal's own), which nobody classified."""
    (tmp_path / "secret.txt").write_text("SECRET\n")
    workspace = tmp_path / "ws"
    write(workspace, {"requirements.txt": "-r ../secret.txt\nsix\n"})
    with pytest.raises(SetupRefused) as refused:
        plan_setup(workspace, allow_direct_requirements=True)
    assert str(refused.value) == (
        "dependency setup refused before pip was asked for it: requirements.txt line 1: '-r ../secret.txt': "
        "includes a file outside the repository's folder. what selfheal cannot classify it never hands "
        "to pip, whatever the operator allows"
    )


# -- the index policy: what the networked set-up may be asked to reach --------------------------
ALLOW = (
    "the set-up downloads only from the operator's package index (pip's own configuration in the "
    "sandbox's image); another index, a VCS checkout or a URL: the operator allows them with "
    "--allow-direct-requirements (the Action's input allow-direct-requirements, the bot server's "
    "--allow-direct-requirements)"
)
INDEX = "another package index (--index-url)"
EXTRA = "another package index (--extra-index-url)"
FIND = "a place pip would search for packages (--find-links)"
TRUST = "a host pip would trust without checking its certificate (--trusted-host)"
VCS = "a version-control checkout, fetched and built with the network"
URL = "a direct URL, downloaded from where the repository says"


def refused(workspace, *, allow: bool = False) -> str:
    with pytest.raises(SetupRefused) as info:
        plan_setup(workspace, allow_direct_requirements=allow)
    assert isinstance(info.value, SetupFailed)  # what every caller of the sandbox already handles
    return str(info.value)


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ("--extra-index-url http://127.0.0.1:9/simple", EXTRA),
        ("--extra-index-url=http://127.0.0.1:9/simple", EXTRA),
        ("--extra http://127.0.0.1:9/simple", EXTRA),  # optparse's abbreviation, as pip reads it
        ("--pre --extra-index-url http://127.0.0.1:9/simple", EXTRA),  # not the first option
        ("-i https://mirror.invalid/simple", INDEX),
        ("-ihttps://mirror.invalid/simple", INDEX),  # the value joined to the option
        ("--index-url https://mirror.invalid/simple", INDEX),
        ("--pypi-url https://mirror.invalid/simple", INDEX),  # pip's other name for it
        ("-f https://mirror.invalid/links/", FIND),
        ("--find-links ./wheels", FIND),
        ("--trusted-host mirror.invalid", TRUST),
        ("git+https://github.com/org/repo.git#egg=repo", VCS),
        ("-e git+https://github.com/org/repo.git#egg=repo", VCS),
        ("-e git://github.com/org/repo.git#egg=repo", VCS),  # pip reads git: as git+git:
        ("repo @ git+https://github.com/org/repo.git@v1", VCS),
        ("hg+https://hg.invalid/repo#egg=repo", VCS),
        ("https://files.invalid/pkg-1.0-py3-none-any.whl", URL),
        ("pkg @ https://files.invalid/pkg-1.0.tar.gz", URL),
        ("pkg@http://169.254.169.254/latest/meta-data/", URL),
        ("ftp://files.invalid/pkg-1.0.tar.gz", URL),
        ("-r https://files.invalid/requirements.txt", "a requirements file fetched from a URL"),
        ("-c http://files.invalid/constraints.txt", "a requirements file fetched from a URL"),
    ],
)
def test_a_requirements_line_that_reaches_beyond_the_index_is_refused_unless_allowed(tmp_path, line, reason):
    write(tmp_path, {"requirements.txt": f"six==1.16.0\n\n{line}\n"})
    assert refused(tmp_path) == (
        "dependency setup refused before pip was asked for it: requirements.txt line 3: "
        f"{line!r}: {reason}. {ALLOW}"
    )
    # the operator's switch: the line goes to pip as it is
    plan = plan_setup(tmp_path, allow_direct_requirements=True)
    assert dict(plan.filtered) == {"requirements.txt": f"six==1.16.0\n\n{line}\n"}
    assert plan.pip_arguments("/sandbox/deps/requirements") == [
        "-r",
        "/sandbox/deps/requirements/requirements.txt",
    ]


def test_what_pip_needs_from_the_index_alone_is_kept_as_it_is(tmp_path):
    text = (
        "--no-index\n--prefer-binary --pre\n--only-binary :all:\n--require-hashes\n"
        "six==1.16.0 --hash=sha256:8abb2f1d86890a2dfb989f9a77cfcfd3e47c2a354b01111771326f8aa26e0254\n"
        'attrs[tests]>=22; python_version >= "3.8"\n-C key=value\n'
    )
    write(tmp_path, {"requirements.txt": text})
    plan = plan_setup(tmp_path)
    assert dict(plan.filtered) == {"requirements.txt": text}
    assert (plan.local, plan.requirements) == ((), ())


def test_every_included_file_is_held_to_it_with_its_own_name_and_line(tmp_path):
    write(tmp_path, {
        "requirements.txt": "six\n-rrequirements/more.txt\n",
        "requirements/more.txt": "# more\n--constraint=pins.txt\n",
        "requirements/pins.txt": "attrs<24\n\n\n--extra-index-url https://user:s3cret@mirror.invalid/simple\n",
    })  # fmt: skip
    message = refused(tmp_path)
    assert message == (
        "dependency setup refused before pip was asked for it: requirements/pins.txt line 4: "
        f"'--extra-index-url https://***@mirror.invalid/simple': {EXTRA}. {ALLOW}"
    )
    assert "s3cret" not in message


def test_every_refused_line_is_named_at_once(tmp_path):
    write(tmp_path, {
        "requirements.txt": "-i https://a.invalid/simple\ngit+https://b.invalid/x.git\nsix\n",
        "pyproject.toml": "[project]\nname = 'app'\ndependencies = ['y @ https://c.invalid/y.whl']\n",
    })  # fmt: skip
    assert refused(tmp_path) == (
        "dependency setup refused before pip was asked for it: "
        f"requirements.txt line 1: '-i https://a.invalid/simple': {INDEX}; "
        f"requirements.txt line 2: 'git+https://b.invalid/x.git': {VCS}; "
        f"pyproject.toml [project] dependencies: 'y @ https://c.invalid/y.whl': {URL}. {ALLOW}"
    )


@pytest.mark.parametrize(
    ("data", "number"),
    [
        # pip joins a line that ends in a backslash with the next
        (b"six \\\n  --extra-index-url http://127.0.0.1:9/simple\n", 1),
        (b"--pre \\\n--extra-index-url http://127.0.0.1:9/simple\n", 1),
        # pip decodes by a BOM, or by a coding line: UTF-7 spells "--" as "+AC0ALQ-"
        ("--extra-index-url http://127.0.0.1:9/simple\n".encode("utf-16"), 1),
        (b"# -*- coding: utf-7 -*-\n+AC0ALQ-extra-index-url http://127.0.0.1:9/simple\n", 2),
        # a tab before the comment's # is whitespace to pip as well
        (b"six\t# pinned\n\t--extra-index-url http://127.0.0.1:9/simple\n", 2),
    ],
)
def test_a_line_is_classified_as_pip_reads_it(tmp_path, data, number):
    (tmp_path / "requirements.txt").write_bytes(data)
    message = refused(tmp_path)
    assert message.startswith(
        f"dependency setup refused before pip was asked for it: requirements.txt line {number}: "
    )
    assert message.endswith(f"{EXTRA}. {ALLOW}")


def test_the_copy_pip_reads_is_the_text_that_was_classified(tmp_path):
    """A coding line is a comment: left out of the copy, pip reads it as UTF-8 (the set-up's
    locale), as it was classified; joined lines stay joined, at the first one's number."""
    (tmp_path / "requirements.txt").write_bytes(
        b"# -*- coding: utf-7 -*-\nsix+AD0APQ-1.16.0\nattrs \\\n  >=22 # pinned\n"
    )
    assert dict(plan_setup(tmp_path).filtered) == {"requirements.txt": "\nsix==1.16.0\nattrs   >=22\n\n"}


@pytest.mark.parametrize(
    ("files", "where", "entry", "reason"),
    [
        (
            {"requirements.txt": "${HOME}/../sandbox/workspace/libs/evil\n"},
            "requirements.txt line 1", "${HOME}/../sandbox/workspace/libs/evil",
            "reads ${HOME} from the set-up's environment",
        ),
        (
            {"requirements.txt": "-r ../../workspace/hidden.txt\n"},
            "requirements.txt line 1", "-r ../../workspace/hidden.txt",
            "includes a file outside the repository's folder",
        ),
        (
            {"requirements.txt": "--target /sandbox/deps/venv\n"},
            "requirements.txt line 1", "--target /sandbox/deps/venv",
            "options selfheal cannot read (no such option: --target); pip is handed only lines it classified",
        ),
        (
            {"pyproject.toml": "[project]\nname = 'app'\ndependencies = ['--extra-index-url=http://x.invalid']\n"},
            "pyproject.toml [project] dependencies", "--extra-index-url=http://x.invalid",
            "not a PEP 508 requirement (pip would read it as an option or a path)",
        ),
        (
            {"pyproject.toml": "[project]\nname = 'app'\n[project.optional-dependencies]\n"
                               "test = ['-e /sandbox/workspace']\n"},
            "pyproject.toml [project.optional-dependencies] test", "-e /sandbox/workspace",
            "not a PEP 508 requirement (pip would read it as an option or a path)",
        ),
    ],
)  # fmt: skip
def test_what_cannot_be_classified_is_refused_whatever_the_operator_allows(
    tmp_path, files, where, entry, reason
):
    write(tmp_path, files)
    expected = (
        f"dependency setup refused before pip was asked for it: {where}: {entry!r}: {reason}. what selfheal "
        "cannot classify it never hands to pip, whatever the operator allows"
    )
    assert refused(tmp_path) == expected
    assert refused(tmp_path, allow=True) == expected


def test_pyproject_dependencies_and_extras_are_held_to_it(tmp_path):
    write(tmp_path, {"pyproject.toml": """
[project]
name = "app"
dependencies = ["six==1.16.0", "helper @ file:libs/helper"]
[project.optional-dependencies]
test = ["pytest", "fixtures @ git+https://github.com/org/fixtures.git"]
docs = ["theme @ https://files.invalid/theme.whl"]
"""})  # fmt: skip
    assert refused(tmp_path) == (
        "dependency setup refused before pip was asked for it: pyproject.toml "
        "[project.optional-dependencies] test: 'fixtures @ git+https://github.com/org/fixtures.git': "
        f"{VCS}. {ALLOW}"
    )
    plan = plan_setup(tmp_path, allow_direct_requirements=True)
    # a file: URL is the repository's own code: built without a network, as a local project
    assert (plan.requirements, plan.local_projects) == (
        ("six==1.16.0", "pytest", "fixtures @ git+https://github.com/org/fixtures.git"),
        ("libs/helper",),
    )


def test_local_paths_stay_local_projects_in_every_spelling(tmp_path):
    write(tmp_path, {
        "requirements.txt": "-e .\n--editable=libs/a\n./libs/b[test]\nfile:./libs/c\n"
                            "d @ file:./libs/d\nlibs/e\n",
        "setup.py": "",
    })  # fmt: skip
    plan = plan_setup(tmp_path)
    assert plan.local_projects == (".", "libs/a", "libs/b[test]", "libs/c", "libs/d", "libs/e")
    assert dict(plan.filtered) == {"requirements.txt": "\n\n\n\n\n\n"}


def test_a_build_backends_requirements_are_held_to_it(tmp_path):
    write(tmp_path, {"libs/x/pyproject.toml": """
[build-system]
requires = ["setuptools>=68", "backend @ https://files.invalid/backend.whl", "shim @ file:../shim"]
build-backend = "backend"
"""})  # fmt: skip
    with pytest.raises(SetupRefused) as info:
        build_requirements(tmp_path, "libs/x[test]")
    assert str(info.value) == (
        "dependency setup refused before pip was asked for it: libs/x/pyproject.toml [build-system] "
        f"requires: 'backend @ https://files.invalid/backend.whl': {URL}; libs/x/pyproject.toml "
        "[build-system] requires: 'shim @ file:../shim': a local path, which pip would build with the "
        f"network. {ALLOW}"
    )
    assert build_requirements(tmp_path, "libs/x[test]", allow_direct=True) == (
        "setuptools>=68", "backend @ https://files.invalid/backend.whl", "shim @ file:../shim",
    )  # fmt: skip


def test_what_a_build_backend_reports_is_held_to_it(tmp_path):
    reported = ["six==1.16.0", "x @ https://files.invalid/x.whl", "y @ file:///sandbox/workspace/y"]
    where = "the requirements the build backend of the project reports"
    with pytest.raises(SetupRefused) as info:
        declared_requirements(where, reported)
    assert str(info.value) == (
        f"dependency setup refused before pip was asked for it: {where}: 'x @ https://files.invalid/x.whl': "
        f"{URL}. {ALLOW}"
    )
    # a local path is the repository's own code: never handed to pip with a network
    assert declared_requirements(where, reported, allow_direct=True) == [
        "six==1.16.0", "x @ https://files.invalid/x.whl",
    ]  # fmt: skip


@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # pip's own imports, not ours
def test_pip_itself_reads_no_index_option_in_the_copies(tmp_path):
    """The copies through pip's own requirements-file parser: every line a named requirement or
    an option that keeps to the index, with the included files followed as pip follows them."""
    req_file = pytest.importorskip("pip._internal.req.req_file")
    from pip._internal.network.session import PipSession

    write(tmp_path, {
        "requirements.txt": "# -*- coding: utf-7 -*-\nsix+AD0APQ-1.16.0\n-e .\n-r requirements/dev.txt\n",
        "requirements/dev.txt": "attrs \\\n  >=22  # pinned\n--prefer-binary\n./libs/x\n",
        "setup.py": "",
    })  # fmt: skip
    plan = plan_setup(tmp_path)
    copies = tmp_path / "copies"
    for name, text in plan.filtered:
        write(copies, {name: text})
    parser = req_file.RequirementsFileParser(PipSession(), req_file.get_line_parser(None))
    lines = list(parser.parse(str(copies / "requirements.txt"), constraint=False))
    assert [(line.requirement if line.is_requirement else None) for line in lines] == [
        "six==1.16.0",
        "attrs   >=22",
        None,
    ]
    for line in lines:
        assert not (line.opts.index_url or line.opts.extra_index_urls or line.opts.find_links)
        assert not (line.opts.trusted_hosts or line.opts.editables)
    assert plan.local_projects == (".", "libs/x")
