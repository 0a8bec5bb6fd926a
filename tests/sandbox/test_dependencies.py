from __future__ import annotations

import pytest

from selfheal.sandbox.dependencies import SetupPlan, default_image, plan_setup, python_version_for


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
    write(tmp_path, {
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
    })
    plan = plan_setup(tmp_path)
    assert plan == SetupPlan(("requirements.txt", "requirements-dev.txt"),
                             ("attrs>=22", "six", "hypothesis"), None)
    assert plan.pip_arguments() == ["-r", "requirements.txt", "-r", "requirements-dev.txt",
                                    "attrs>=22", "six", "hypothesis"]


@pytest.mark.parametrize("files", [
    {"setup.py": "from setuptools import setup\nsetup()\n"},
    {"pyproject.toml": "[project]\nname = 'x'\ndynamic = ['dependencies']\n"},
])
def test_dynamic_metadata_installs_the_project_itself(tmp_path, files):
    write(tmp_path, files)
    assert plan_setup(tmp_path).install_project == "."


def test_dynamic_project_with_test_extras(tmp_path):
    write(tmp_path, {"pyproject.toml": "[project]\nname = 'x'\ndynamic = ['dependencies']\n"
                                       "[project.optional-dependencies]\ntests = ['pytest']\n"})
    assert plan_setup(tmp_path).install_project == ".[tests]"


@pytest.mark.parametrize(("files", "version"), [
    ({}, "3.12"),
    ({".python-version": "3.10.4\n"}, "3.10"),
    ({"pyproject.toml": "[project]\nrequires-python = '>=3.9'\n"}, "3.12"),
    ({"pyproject.toml": "[project]\nrequires-python = '>=3.8,<3.11'\n"}, "3.10"),
    ({"pyproject.toml": "[project]\nrequires-python = '>=3.13'\n"}, "3.13"),
    ({"pyproject.toml": "[project]\nrequires-python = 'not a spec'\n"}, "3.12"),
])
def test_the_image_matches_the_python_the_repo_declares(tmp_path, files, version):
    write(tmp_path, files)
    assert python_version_for(tmp_path) == version
    assert default_image(tmp_path) == f"python:{version}-slim"
