# ruff: noqa: E501  (cases are data: answers and files as they are written)
"""Malformed and huge answers: 5 MB, JSON nested 100,000 deep, lone surrogates and undecodable
bytes, answers that violate their role's schema, tool calls to unknown tools or with arguments of
the wrong shape, and a debugger that calls tools forever (its step cap). None may crash the heal;
each is told what was wrong, and the heal goes on (the next answer, or the search)."""

FAMILY = "malformed"

CASES = [
    {
        "id": "mal-5mb-generator",
        "quick": True,
        "title": "a 5 MB generator answer with no edit block",
        "answers": {"generator": [{"text": "Here is my thinking: ", "pad": 5000000}]},
        "expect": {"generator_told": ["no edit blocks found in your answer"]},
    },
    {
        "id": "mal-5mb-debugger",
        "quick": True,
        "title": "a 5 MB debugger answer instead of its conclusion",
        "answers": {"debugger": [{"text": "Let me think. ", "pad": 5000000}, "@conclusion"]},
        "expect": {"calls": {"debugger": 2}},
    },
    {
        "id": "mal-nested-json-debugger",
        "quick": True,
        "title": "a debugger conclusion of JSON arrays nested 100,000 deep",
        "answers": {"debugger": [{"nest": 100000}, "@conclusion"]},
        "expect": {"calls": {"debugger": 2}},
    },
    {
        "id": "mal-nested-json-generator",
        "quick": True,
        "title": "a generator answer of JSON nested 100,000 deep (the JSON form of edits)",
        "answers": {"generator": [{"text": '{"edits": ', "nest": 100000}]},
        "expect": {"generator_told": ["Your edits were not applied"]},
    },
    {
        "id": "mal-nested-json-tests",
        "title": "spec and adversarial answers nested 100,000 deep",
        "answers": {
            "spec_tests": [{"nest": 100000}, {"nest": 100000}],
            "qa_adversarial": [{"nest": 100000}, {"nest": 100000}],
        },
        "expect": {"fix_by": "generator"},
    },
    {
        "id": "mal-surrogates-generator",
        "quick": True,
        "title": "an edit whose replacement holds a lone surrogate (not encodable as UTF-8)",
        "answers": {
            "generator": [
                "calc/core.py\n<<<<<<< SEARCH\n    return width + height\n=======\n"
                "    return width * height  # \ud800\n>>>>>>> REPLACE\n"
            ]
        },
        "expect": {"generator_told": ["surrogate"], "patch_excludes": ["# "]},
    },
    {
        "id": "mal-invalid-utf8-diagnosis",
        "quick": True,
        "title": "a conclusion whose text holds undecodable bytes (surrogate escapes) that reach the report",
        "answers": {
            "debugger": [
                {
                    "text": "",
                    "bytes": '{"root_cause": "bytes \xff\xfe in \xc3(", "location": {"file": "calc/core.py", "line": 6, '
                    '"function": "area"}, "confidence": 0.9, "strategy": "multiply \xed\xa0\x80"}',
                }
            ]
        },
        "expect": {},
    },
    {
        "id": "mal-schema-debugger",
        "quick": True,
        "title": "two debugger conclusions that violate the schema (types, missing keys)",
        "answers": {
            "debugger": [
                {"json": {"root_cause": 5, "location": "calc/core.py", "confidence": "very"}},
                {"json": [{"root_cause": "x"}]},
            ]
        },
        "expect": {"debugger_degraded": True, "debugger_stopped": "no valid conclusion"},
    },
    {
        "id": "mal-schema-tests",
        "title": "spec and adversarial answers that violate the schema (names, code, types)",
        "answers": {
            "spec_tests": [
                {"json": {"imports": "from calc.core import area", "tests": [{"name": 5, "code": None}]}},
                {
                    "json": {
                        "imports": [],
                        "tests": [{"name": "not a name", "code": "x", "source": "docstring"}],
                    }
                },
            ],
            "qa_adversarial": [
                {
                    "json": {
                        "imports": [7],
                        "tests": [{"name": "test_x", "code": 3, "edge_case": [], "oracle": {}}],
                    }
                },
                {"json": {"tests": "all of them"}},
            ],
        },
        "expect": {"fix_by": "generator"},
    },
    {
        "id": "mal-unknown-tools",
        "quick": True,
        "title": "tool calls to unknown tools, with arguments that are not objects, of the wrong types",
        "answers": {
            "debugger": [
                {
                    "tool_calls": [
                        ["delete_repository", {"confirm": True}],
                        ["read_file", ["calc/core.py"]],
                        ["run_snippet", {"code": 5, "timeout_s": 10000}],
                        ["run_tests", {"test_ids": "tests/test_core.py"}],
                        ["search_code", {"pattern": "(", "regex": True}],
                        ["", {}],
                    ]
                },
                "@conclusion",
            ]
        },
        "expect": {
            "tool_errors": [
                "unknown tool `delete_repository`",
                "must be a JSON object",
                "bad arguments for run_snippet",
                "bad arguments for run_tests",
                "invalid regular expression",
            ],
        },
    },
    {
        "id": "mal-tool-loop",
        "quick": True,
        "title": "a debugger that calls a tool forever: the step cap stops it, the search heals",
        "answers": {"debugger": [{"tool_calls": [["localization", {}]], "times": 20}]},
        "expect": {"debugger_degraded": True, "debugger_stopped": "step cap"},
    },
    {
        "id": "mal-critic-memory-garbage",
        "title": "a critic and a memory that answer 1 MB of garbage and deep JSON",
        "answers": {
            "critic": [{"pad": 1000000, "pad_char": "{"}, {"nest": 100000}],
            "memory": [{"nest": 100000}, {"pad": 1000000}, {"nest": 100000}, {"pad": 1000000}],
        },
        "expect": {"fix_by": "generator"},
    },
    {
        "id": "mal-empty-and-truncated",
        "quick": True,
        "title": "an empty generator answer, then one cut off inside its block",
        "answers": {
            "generator": [
                "",
                {
                    "text": "calc/core.py\n<<<<<<< SEARCH\n    return width + height\n=======\n    return wid",
                    "truncated": True,
                },
            ]
        },
        "expect": {
            "generator_told": ["no edit blocks found", "was the answer cut off?"],
        },
    },
]
