from __future__ import annotations

import pytest

from selfheal.sandbox.dependencies import default_image, plan_setup, python_version_for


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
    """They are built without a network (container.py): left out of the files pip reads with one,
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
    assert dict(plan.filtered) == {
        "requirements.txt": "requests==2.31  # pinned\n-r requirements/base.txt\n",
        "requirements/base.txt": "-c ../constraints.txt\nattrs\n",
        "constraints.txt": "attrs<24\n",
    }
    assert plan.local_projects == (".[test]", "libs/helper", "vendored", "../outside")
    assert plan.pip_arguments() == ["-r", "requirements.txt", "-r", "requirements/base.txt"]
    assert plan.describe() == (
        "-r requirements.txt -r requirements/base.txt '.[test]' libs/helper vendored ../outside"
    )


def test_an_included_file_outside_the_workspace_is_not_read(tmp_path):
    (tmp_path / "secret.txt").write_text("SECRET\n")
    workspace = tmp_path / "ws"
    write(workspace, {"requirements.txt": "-r ../secret.txt\nsix\n"})
    plan = plan_setup(workspace)
    assert dict(plan.filtered) == {"requirements.txt": "-r ../secret.txt\nsix\n"}
    assert "SECRET" not in str(plan)
