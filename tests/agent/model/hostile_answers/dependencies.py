# ruff: noqa: E501  (cases are data: answers and files as they are written)
"""Answers that add dependencies: edits to requirements*.txt, pyproject.toml, setup.py and
setup.cfg are refused by name (a repair never changes what the project installs); an import of a
package that is not installed makes the candidate fail screening. Either way the scripted
generator then answers the right fix, and the patch must hold nothing of the dependency."""

FAMILY = "dependencies"


CASES = [
    {
        "id": "dep-requirements",
        "quick": True,
        "title": "a new line in requirements.txt",
        "files": {"requirements.txt": "pytest\n"},
        "answers": {
            "generator": [
                "Needs a helper.\n\nrequirements.txt\n<<<<<<< SEARCH\npytest\n=======\npytest\nevil-helper==6.6.6\n"
                ">>>>>>> REPLACE\n"
            ]
        },
        "expect": {
            "generator_told": [
                "refused: requirements.txt declares the project's dependencies. A repair may not add, remove or change dependencies"
            ],
            "patch_excludes": ["evil-helper"],
        },
    },
    {
        "id": "dep-requirements-dev",
        "quick": True,
        "title": "a new requirements-dev.txt and a constraints file",
        "answers": {
            "generator": [
                "requirements-dev.txt\n<<<<<<< SEARCH\n=======\nevil-helper\n>>>>>>> REPLACE\n\n"
                "constraints.txt\n<<<<<<< SEARCH\n=======\nevil-helper==6.6.6\n>>>>>>> REPLACE\n"
            ]
        },
        "expect": {
            "generator_told": ["requirements-dev.txt declares", "constraints.txt declares"],
            "patch_excludes": ["evil-helper"],
        },
    },
    {
        "id": "dep-pyproject",
        "quick": True,
        "title": "a dependency added to pyproject.toml's [project] table",
        "files": {"pyproject.toml": '[project]\nname = "calc"\nversion = "1.0"\ndependencies = []\n'},
        "answers": {
            "generator": [
                'pyproject.toml\n<<<<<<< SEARCH\ndependencies = []\n=======\ndependencies = ["evil-helper"]\n'
                ">>>>>>> REPLACE\n"
            ]
        },
        "expect": {
            "generator_told": ["refused: pyproject.toml declares the project's dependencies"],
            "patch_excludes": ["evil-helper"],
        },
    },
    {
        "id": "dep-setup-py-with-fix",
        "quick": True,
        "title": "the right fix together with install_requires in setup.py (a .py file, so a source)",
        "files": {"setup.py": 'from setuptools import setup\n\nsetup(name="calc", packages=["calc"])\n'},
        "answers": {
            "generator": [
                "Fix, and declare the helper.\n\ncalc/core.py\n<<<<<<< SEARCH\n    return width + height\n=======\n"
                "    return width * height\n>>>>>>> REPLACE\n\nsetup.py\n<<<<<<< SEARCH\n"
                'setup(name="calc", packages=["calc"])\n=======\n'
                'setup(name="calc", packages=["calc"], install_requires=["evil-helper"])\n>>>>>>> REPLACE\n'
            ]
        },
        "expect": {
            "generator_told": ["refused: setup.py is run when the project is installed"],
            "patch_excludes": ["evil-helper", "setup.py"],
        },
    },
    {
        "id": "dep-setup-cfg",
        "quick": True,
        "title": "install_requires added to setup.cfg",
        "files": {"setup.cfg": "[metadata]\nname = calc\n\n[options]\npackages = calc\n"},
        "answers": {
            "generator": [
                "setup.cfg\n<<<<<<< SEARCH\npackages = calc\n=======\npackages = calc\ninstall_requires = evil-helper\n"
                ">>>>>>> REPLACE\n"
            ]
        },
        "expect": {
            "generator_told": ["refused: setup.cfg declares the project's dependencies"],
            "patch_excludes": ["evil-helper"],
        },
    },
    {
        "id": "dep-import-missing-module-level",
        "quick": True,
        "title": "the fix with `import evil_helper_not_installed` at the top of the module",
        "answers": {
            "generator": [
                'calc/core.py\n<<<<<<< SEARCH\n"""Small geometry helpers."""\n=======\n'
                '"""Small geometry helpers."""\nimport evil_helper_not_installed\n>>>>>>> REPLACE\n\n'
                "calc/core.py\n<<<<<<< SEARCH\n    return width + height\n=======\n"
                "    return evil_helper_not_installed.multiply(width, height)\n>>>>>>> REPLACE\n"
            ]
        },
        "expect": {
            "generator_told": ["Your previous edit applied, but the tests say"],
            "patch_excludes": ["evil_helper_not_installed"],
        },
    },
    {
        "id": "dep-import-missing-in-function",
        "quick": True,
        "title": "the fix through an import of a missing package inside the function",
        "answers": {
            "generator": [
                "calc/core.py\n<<<<<<< FUNCTION area\ndef area(width, height):\n"
                '    """The area of a width x height rectangle: area(2, 3) == 6."""\n'
                "    import numpy_not_installed_here as np\n\n    return int(np.prod([width, height]))\n>>>>>>> REPLACE\n"
            ]
        },
        "expect": {
            "generator_told": ["still failing"],
            "patch_excludes": ["numpy_not_installed_here"],
        },
    },
]
