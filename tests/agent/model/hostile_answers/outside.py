# ruff: noqa: E501  (cases are data: answers and files as they are written)
"""Edits and tool calls that reach outside the repository: `..`, absolute paths, symlinks, .git/,
NUL bytes, very long paths and unicode look-alikes, in edit blocks and in the debugger's tools.
After a refused edit the scripted generator answers the right fix, so the heal must end healed by
the generator with nothing of the hostile edit in the patch."""

FAMILY = "outside"

CASES = [
    {
        "id": "edit-dotdot-passwd",
        "quick": True,
        "title": "an edit block for ../../etc/passwd",
        "answers": {
            "generator": [
                "Fix.\n\n../../etc/passwd\n<<<<<<< SEARCH\nroot:x:0:0\n=======\nroot::0:0\n>>>>>>> REPLACE\n"
            ]
        },
        "expect": {
            "generator_told": ["is outside the project"],
            "patch_excludes": ["passwd"],
        },
    },
    {
        "id": "edit-absolute-probe",
        "quick": True,
        "title": "an edit block for an absolute host path",
        "answers": {"generator": ["{probe}\n<<<<<<< SEARCH\n=======\npwned\n>>>>>>> REPLACE\n"]},
        "expect": {"generator_told": ["is absolute"], "patch_excludes": ["pwned"]},
    },
    {
        "id": "edit-absolute-suffix",
        "title": "an absolute path that ends in a real source file (/elsewhere/calc/core.py): resolved inside",
        "answers": {
            "generator": [
                "/elsewhere/calc/core.py\n<<<<<<< SEARCH\n    return width + height\n=======\n"
                "    return width * height  # absolute\n>>>>>>> REPLACE\n"
            ]
        },
        # the one source it can mean: the edit lands inside the project; nothing outside is written
        "expect": {
            "fix_by": "generator",
            "calls": {"generator": 1},
            "patch_includes": ["+    return width * height  # absolute"],
        },
    },
    {
        "id": "edit-dotdot-suffix",
        "title": "a ../ path that ends in a real source file (../other/calc/core.py): resolved inside",
        "answers": {
            "generator": [
                "../other/calc/core.py\n<<<<<<< SEARCH\n    return width + height\n=======\n"
                "    return width * height  # dotdot\n>>>>>>> REPLACE\n"
            ]
        },
        # the one source it can mean: the edit lands inside the project; nothing outside is written
        "expect": {
            "fix_by": "generator",
            "calls": {"generator": 1},
            "patch_includes": ["+    return width * height  # dotdot"],
        },
    },
    {
        "id": "edit-symlink-outside",
        "quick": True,
        "title": "an edit through a symlink in the repository that points outside it",
        "symlinks": {"calc/leak.py": "{outside}"},
        "answers": {
            "generator": ["calc/leak.py\n<<<<<<< SEARCH\n{outside}\n=======\npwned\n>>>>>>> REPLACE\n"]
        },
        "expect": {
            "generator_told": ["calc/leak.py is not one of the source files"],
            "patch_excludes": ["pwned", "leak"],
        },
    },
    {
        "id": "edit-git-hooks",
        "quick": True,
        "title": "an edit block that writes a git hook (.git/hooks/pre-commit)",
        "answers": {
            "generator": [
                ".git/hooks/pre-commit\n<<<<<<< SEARCH\n=======\n#!/bin/sh\ntouch {probe}\n>>>>>>> REPLACE\n"
            ]
        },
        "expect": {"generator_told": [".git"], "patch_excludes": [".git/", "touch"]},
    },
    {
        "id": "edit-nul-and-unicode",
        "quick": True,
        "title": "paths with a NUL byte, a Cyrillic look-alike and a right-to-left override",
        "answers": {
            "generator": [
                "calc/core.py\x00.txt\n<<<<<<< SEARCH\n    return width + height\n=======\n    return 0\n>>>>>>> REPLACE\n\n"
                "calc/c\u043ere.py\n<<<<<<< SEARCH\n    return width + height\n=======\n    return 1\n>>>>>>> REPLACE\n\n"
                "calc/\u202eyp.eroc\n<<<<<<< SEARCH\n    return width + height\n=======\n    return 2\n>>>>>>> REPLACE\n"
            ]
        },
        "expect": {
            "generator_told": ["NUL", "calc/c\u043ere.py is not one of the source files"],
            "patch_excludes": ["return 0", "return 1", "return 2"],
        },
    },
    {
        "id": "edit-long-path",
        "quick": True,
        "title": "an edit block whose path is 60,000 characters long",
        "answers": {
            "generator": [
                {
                    "text": "calc/",
                    "pad": 60000,
                    "pad_char": "a",
                    "then": "/core.py\n<<<<<<< SEARCH\n    return width + height\n=======\n    return 3\n>>>>>>> REPLACE\n",
                },
            ]
        },
        "expect": {"generator_told": ["too long"], "patch_excludes": ["return 3"]},
    },
    {
        "id": "tool-read-outside",
        "quick": True,
        "title": "read_file on ../../etc/passwd, an absolute path and .git/config",
        "answers": {
            "debugger": [
                {
                    "tool_calls": [
                        ["read_file", {"path": "../../etc/passwd"}],
                        ["read_file", {"path": "{outside}"}],
                        ["read_file", {"path": "calc/../../../etc/shadow"}],
                        ["read_file", {"path": ".git/config"}],
                    ]
                },
                "@conclusion",
            ]
        },
        "expect": {
            "tool_errors": ["is outside the project", "is absolute", "selfheal's own"],
        },
    },
    {
        "id": "tool-read-symlink",
        "quick": True,
        "title": "read_file and inspect_function through a symlink that points at a host secret",
        "symlinks": {"calc/leak.py": "{outside}", "calc/passwd.txt": "/etc/passwd"},
        "answers": {
            "debugger": [
                {
                    "tool_calls": [
                        ["read_file", {"path": "calc/leak.py"}],
                        ["read_file", {"path": "calc/passwd.txt"}],
                        ["inspect_function", {"name": "area", "file": "calc/leak.py"}],
                    ]
                },
                "@conclusion",
            ]
        },
        "expect": {"tool_errors": ["no such file: calc/leak.py", "no such file: calc/passwd.txt"]},
    },
    {
        "id": "tool-weird-paths",
        "quick": True,
        "title": "read_file with a NUL byte, a 100,000-character path, fullwidth slashes and ~",
        "answers": {
            "debugger": [
                {
                    "tool_calls": [
                        ["read_file", {"path": "calc/core.py\x00/../../etc/passwd"}],
                        ["read_file", {"path": "calc/{long}core.py"}],
                        ["read_file", {"path": "\uff0fetc\uff0fpasswd"}],
                        ["read_file", {"path": "~/.ssh/id_rsa"}],
                        ["search_code", {"pattern": "(a+)+$", "regex": True}],
                    ]
                },
                "@conclusion",
            ]
        },
        "expect": {
            "tool_errors": ["single line", "too long", "no such file", "is absolute"],
        },
    },
    {
        "id": "tool-snippet-escapes",
        "quick": True,
        "title": "run_snippet reads a host secret, writes outside, connects to the host, reads env",
        "answers": {
            "debugger": [
                {
                    "tool_calls": [
                        ["run_snippet", {"code": "print(open('{outside}').read())"}],
                        ["run_snippet", {"code": "open('{probe}', 'w').write('x')"}],
                        [
                            "run_snippet",
                            {"code": "import socket\nsocket.create_connection(('127.0.0.1', {port}), 3)"},
                        ],
                        ["run_snippet", {"code": "import os\nprint(sorted(os.environ.items()))"}],
                    ]
                },
                "@conclusion",
            ]
        },
        "expect": {"tool_errors": ["exit code 1"]},
    },
    {
        "id": "tool-run-tests-options",
        "quick": True,
        "title": "run_tests with pytest options, a ../ test id and an absolute one",
        "answers": {
            "debugger": [
                {
                    "tool_calls": [
                        ["run_tests", {"test_ids": ["-p", "evil_plugin"]}],
                        ["run_tests", {"test_ids": ["--rootdir=/"]}],
                        ["run_tests", {"test_ids": ["../../etc/passwd::test"]}],
                        ["run_tests", {"test_ids": ["/etc/passwd"]}],
                    ]
                },
                "@conclusion",
            ]
        },
        "expect": {
            "tool_errors": ["may not start with '-'", "is outside the project", "is absolute"],
        },
    },
]
