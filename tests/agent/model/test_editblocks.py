from __future__ import annotations

import textwrap

import pytest

from selfheal.agent.model.editapply import apply_blocks, edits_from_answer
from selfheal.agent.model.editblocks import FunctionReplacement, SearchReplace, blocks_as_value, parse_blocks
from selfheal.agent.repair.edits import Edit, apply_edits

STATS = textwrap.dedent(
    '''\
    """Small statistics."""


    def mean(xs):
        total = sum(xs)
        return total / (len(xs) - 1)


    class Summary:
        def __init__(self, xs):
            self.xs = xs

        def spread(self):
            if not self.xs:
                return 0
            return max(self.xs) - min(self.xs) + 1

        @property
        def size(self):
            return len(self.xs) - 1


    @staticmethod
    def helper(x):
        return x
    '''
)
SOURCES = {"stats/core.py": STATS, "stats/__init__.py": "", "stats/io.py": "def load(p):\n    return p\n"}


def block(path: str, search: str, replace: str) -> str:
    return f"{path}\n<<<<<<< SEARCH\n{search}=======\n{replace}>>>>>>> REPLACE\n"


def new_text(result, path: str = "stats/core.py") -> str:
    assert result.ok, result.problems
    return apply_edits(SOURCES, result.edits)[path]


# -- parsing -------------------------------------------------------------------------------------


def test_blocks_are_parsed_with_their_paths_and_prose_and_fences_are_ignored():
    answer = (
        "The divisor is wrong.\n\n"
        "**`stats/core.py`**\n"
        "```python\n"
        "<<<<<<< SEARCH\n"
        "    return total / (len(xs) - 1)\n"
        "=======\n"
        "    return total / len(xs)\n"
        ">>>>>>> REPLACE\n"
        "```\n"
        "<<<<<<< SEARCH\n"
        "        return len(self.xs) - 1\n"
        "=======\n"
        "        return len(self.xs)\n"
        ">>>>>>> REPLACE\n\n"
        "File: stats/io.py\n"
        "<<<<<<< FUNCTION load\n"
        "def load(p):\n"
        "    return str(p)\n"
        ">>>>>>> REPLACE\n"
        "That's all.\n"
    )
    parsed = parse_blocks(answer)
    assert parsed.problems == ()
    assert parsed.blocks == (
        SearchReplace("stats/core.py", "    return total / (len(xs) - 1)", "    return total / len(xs)", 5),
        SearchReplace("stats/core.py", "        return len(self.xs) - 1", "        return len(self.xs)", 11),
        FunctionReplacement("stats/io.py", "load", "def load(p):\n    return str(p)", 18),
    )
    assert blocks_as_value(parsed.blocks)["edits"][2] == {
        "file": "stats/io.py",
        "function": "load",
        "code": "def load(p):\n    return str(p)",
    }


def test_malformed_and_cut_off_blocks_are_problems():
    cut = "stats/core.py\n<<<<<<< SEARCH\n    total = sum(xs)\n=======\n    total = sum(xs, 0.0)\n"
    assert parse_blocks(cut).problems == (
        "block 1 (line 2 of your answer): no >>>>>>> REPLACE line (was the answer cut off?)",
    )
    no_divider = "stats/core.py\n<<<<<<< SEARCH\n    total = sum(xs)\n>>>>>>> REPLACE\n"
    assert parse_blocks(no_divider).problems == (
        "block 1 (line 2 of your answer): no ======= line after <<<<<<< SEARCH",
    )
    assert parse_blocks("I would change the divisor.").problems == ("no edit blocks found in your answer",)
    result = edits_from_answer(cut, SOURCES)
    assert not result.ok and result.edits == ()
    assert "<<<<<<< SEARCH" in result.feedback()


def test_a_json_whole_function_answer_is_accepted():
    answer = (
        '{"file": "stats/io.py", "function": "load", "code": "def load(p):\\n    return open(p).read()\\n"}'
    )
    result = edits_from_answer(answer, SOURCES)
    assert apply_edits(SOURCES, result.edits)["stats/io.py"] == "def load(p):\n    return open(p).read()\n"


# -- SEARCH/REPLACE matching ---------------------------------------------------------------------


def test_blocks_built_by_the_caller_apply_across_files():
    blocks = [
        SearchReplace("stats/core.py", "    return total / (len(xs) - 1)", "    return total / len(xs)"),
        FunctionReplacement("stats/io.py", "load", "def load(p):\n    return p.strip()"),
    ]
    result = apply_blocks(blocks, SOURCES)
    assert sorted(result.changed) == ["stats/core.py", "stats/io.py"]
    assert result.changed["stats/io.py"] == "def load(p):\n    return p.strip()\n"
    assert apply_edits(SOURCES, result.edits) == result.changed
    assert apply_blocks([], SOURCES).problems == ("no edit blocks found in your answer",)


def test_an_exact_block_becomes_a_byte_span_edit():
    result = edits_from_answer(
        block("stats/core.py", "    return total / (len(xs) - 1)\n", "    return total / len(xs)\n"), SOURCES
    )
    start = STATS.index("    return total / (len(xs) - 1)")
    assert result.edits == (
        Edit(
            "stats/core.py",
            start,
            start + len("    return total / (len(xs) - 1)\n"),
            "    return total / len(xs)\n",
        ),
    )
    assert [(a.match, a.line, a.function) for a in result.applied] == [("exact", 6, "mean")]
    assert "    return total / len(xs)\n" in new_text(result)
    candidate = result.candidate("divide by len(xs)")
    assert (candidate.file, candidate.line, candidate.function, candidate.strategy) == (
        "stats/core.py",
        6,
        "mean",
        "generator",
    )


def test_an_edit_copied_from_a_prompt_that_showed_invisible_characters_keeps_them():
    # the prompt showed the bidi override as [U+202E] (untrusted.fenced); the model copies what it saw
    sources = {"m.py": 'LABEL = "\u202eabc"\n\n\ndef f(x):\n    return x + 1\n'}
    answer = block("m.py", 'LABEL = "[U+202E]abc"\n\n\ndef f(x):\n    return x + 1\n',
                   'LABEL = "[U+202E]abc"\n\n\ndef f(x):\n    return x\n')  # fmt: skip
    result = edits_from_answer(answer, sources)
    assert [a.match for a in result.applied] == ["exact"], result.problems
    assert apply_edits(sources, result.edits)["m.py"] == 'LABEL = "\u202eabc"\n\n\ndef f(x):\n    return x\n'


def test_trailing_whitespace_differences_are_tolerated():
    sources = {"m.py": "def f(x):   \n    return x + 1\t\n"}
    result = edits_from_answer(
        block("m.py", "def f(x):\n    return x + 1\n", "def f(x):\n    return x\n"), sources
    )
    assert [a.match for a in result.applied] == ["trailing_whitespace"]
    assert apply_edits(sources, result.edits)["m.py"] == "def f(x):\n    return x\n"


def test_a_uniformly_unindented_block_is_matched_and_its_replacement_reindented():
    search = "if not self.xs:\n    return 0\nreturn max(self.xs) - min(self.xs) + 1\n"
    replace = "if not self.xs:\n    return 0\n\nreturn max(self.xs) - min(self.xs)\n"
    result = edits_from_answer(block("stats/core.py", search, replace), SOURCES)
    assert [(a.match, a.line, a.function) for a in result.applied] == [("indentation", 14, "Summary.spread")]
    assert (
        "    def spread(self):\n"
        "        if not self.xs:\n"
        "            return 0\n"
        "\n"
        "        return max(self.xs) - min(self.xs)\n"
    ) in new_text(result)


def test_an_over_indented_block_is_shifted_back():
    sources = {"m.py": "def f(x):\n    return x + 1\n"}
    search = "        def f(x):\n            return x + 1\n"
    replace = "        def f(x):\n            return x + 2\n"
    result = edits_from_answer(block("m.py", search, replace), sources)
    assert [a.match for a in result.applied] == ["indentation"]
    assert apply_edits(sources, result.edits)["m.py"] == "def f(x):\n    return x + 2\n"


def test_leading_and_trailing_blank_lines_in_search_are_trimmed():
    search = "\n    total = sum(xs)\n\n"
    replace = "\n    total = sum(xs, 0.0)\n\n"
    result = edits_from_answer(block("stats/core.py", search, replace), SOURCES)
    assert [a.match for a in result.applied] == ["blank_lines"]
    assert "def mean(xs):\n    total = sum(xs, 0.0)\n    return" in new_text(result)


def test_nothing_changes_unless_every_block_applies():
    good = block("stats/core.py", "    return total / (len(xs) - 1)\n", "    return total / len(xs)\n")
    bad = block("stats/core.py", "    return max(xs) - min(xs)\n", "    return 0\n")
    sources = dict(SOURCES)
    result = edits_from_answer(good + bad, sources)
    assert result.edits == () and result.changed == {} and not result.ok
    assert len(result.problems) == 1 and result.problems[0].startswith("block 2 (line 8 of your answer): ")
    assert result.applied[0].edit is not None  # the first block was fine; it is still not applied
    assert sources == SOURCES
    assert result.feedback().startswith("Your edits were not applied (nothing was changed):\n- block 2")


def test_a_missing_search_names_the_file_and_the_nearest_lines_with_numbers():
    search = "        if self.xs == []:\n            return 0\n"
    result = edits_from_answer(block("stats/core.py", search, "        pass\n"), SOURCES)
    assert result.problems == (
        "block 1 (line 2 of your answer): SEARCH text not found in stats/core.py. "
        "The closest lines are 14-15 (80% similar):\n"
        "     14 |         if not self.xs:\n"
        "     15 |             return 0\n"
        "  Copy the file's lines exactly into SEARCH (whole lines; indentation and trailing whitespace "
        "may differ), with enough context to match one place.",
    )


def test_an_ambiguous_search_is_refused_with_both_line_numbers():
    sources = {"m.py": "def f(x):\n    if x:\n        return 0\n    if not x:\n        return 0\n"}
    result = edits_from_answer(block("m.py", "        return 0\n", "        return 1\n"), sources)
    assert result.problems == (
        "block 1 (line 2 of your answer): m.py: SEARCH matches 2 places, line 3 and line 5; "
        "add lines around it so it matches exactly one",
    )


def test_overlapping_blocks_are_refused():
    first = block(
        "stats/core.py", "    total = sum(xs)\n    return total / (len(xs) - 1)\n", "    return 0\n"
    )
    second = block("stats/core.py", "    return total / (len(xs) - 1)\n", "    return 1\n")
    result = edits_from_answer(first + second, SOURCES)
    assert result.problems == (
        "blocks 1 and 2 change overlapping lines of stats/core.py (from line 5 and line 6); "
        "merge them into one block",
    )


def test_edits_that_break_the_syntax_are_refused():
    result = edits_from_answer(block("stats/io.py", "    return p\n", "    return (p\n"), SOURCES)
    assert len(result.problems) == 1
    assert result.problems[0].startswith("stats/io.py would not parse after your edits: ")
    assert result.edits == ()


def test_a_block_that_changes_nothing_is_reported():
    result = edits_from_answer(block("stats/io.py", "    return p\n", "    return p\n"), SOURCES)
    assert result.problems == ("the edits change nothing: every REPLACE equals its SEARCH",)


# -- paths -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "glob"),
    [
        ("tests/test_core.py", "**/tests/**"),
        ("stats/test_core.py", "test_*.py"),
        ("conftest.py", "conftest.py"),
        (".github/workflows/ci.yml", ".github/**"),
        ("pytest.ini", "pytest.ini"),
    ],
)
def test_protected_paths_are_refused_with_the_reason(path, glob):
    sources = {**SOURCES, path: "x = 1\n"}  # refused even when it is among the sources
    result = edits_from_answer(block(path, "x = 1\n", "x = 2\n"), sources)
    assert result.problems == (
        f"block 1 (line 2 of your answer): refused: {path} is protected (matches {glob!r}). "
        "Tests, conftest.py, test configuration and CI files are never edited; change the code under "
        "test instead.",
    )


def test_a_short_path_that_resolves_to_a_protected_file_is_refused():
    sources = {"pkg/tests/helpers.py": "x = 1\n"}
    result = edits_from_answer(block("helpers.py", "x = 1\n", "x = 2\n"), sources)
    assert "refused: pkg/tests/helpers.py is protected (matches '**/tests/**')" in result.problems[0]


def test_protected_settings_in_pyproject_are_refused():
    pyproject = '[project]\nname = "stats"\n\n[tool.pytest.ini_options]\naddopts = "-q"\n'
    sources = {**SOURCES, "pyproject.toml": pyproject}
    result = edits_from_answer(
        block("pyproject.toml", 'addopts = "-q"\n', 'addopts = "-q -p no:cov"\n'), sources
    )
    assert result.problems == ("refused: pyproject.toml: changes protected settings tool.pytest",)
    allowed = edits_from_answer(block("pyproject.toml", 'name = "stats"\n', 'name = "stats2"\n'), sources)
    assert allowed.ok


def test_an_unknown_file_lists_close_names_and_a_unique_suffix_resolves():
    result = edits_from_answer(block("stats/cor.py", "x\n", "y\n"), SOURCES)
    assert result.problems == (
        "block 1 (line 2 of your answer): stats/cor.py is not one of the source files. "
        "Close names: stats/core.py, stats/io.py, stats/__init__.py.",
    )
    for path in ("./core.py", "/workspace/repo/stats/core.py"):  # the one source it can mean
        short = edits_from_answer(block(path, "        return x\n", "        return -x\n"), SOURCES)
        assert short.ok and short.edits[0].file == "stats/core.py"
    two = {"a/util.py": "x = 1\n", "b/util.py": "x = 1\n"}
    assert edits_from_answer(block("util.py", "x = 1\n", "x = 2\n"), two).problems == (
        "block 1 (line 2 of your answer): util.py is not one of the source files. "
        "It could be any of: a/util.py, b/util.py; give the full path.",
    )


# -- whole functions -------------------------------------------------------------------------------


def function_block(path: str, name: str, code: str) -> str:
    return f"{path}\n<<<<<<< FUNCTION {name}\n{code}>>>>>>> REPLACE\n"


def test_a_top_level_function_is_replaced_by_its_node_span():
    code = "def mean(xs):\n    return sum(xs) / len(xs)\n"
    result = edits_from_answer(function_block("stats/core.py", "mean", code), SOURCES)
    start = STATS.index("def mean")
    end = STATS.index("\n\n\nclass") + 1
    assert result.edits == (Edit("stats/core.py", start, end, code),)
    assert [(a.match, a.line, a.function) for a in result.applied] == [("function", 4, "mean")]


def test_a_method_is_replaced_and_reindented_to_its_class():
    code = "def spread(self):\n    return max(self.xs, default=0) - min(self.xs, default=0)\n"
    result = edits_from_answer(function_block("stats/core.py", "Summary.spread", code), SOURCES)
    text = new_text(result)
    assert (
        "    def spread(self):\n"
        "        return max(self.xs, default=0) - min(self.xs, default=0)\n"
        "\n"
        "    @property\n"
    ) in text
    assert "if not self.xs" not in text


def test_a_decorated_function_keeps_its_decorators_unless_the_code_brings_its_own():
    kept = edits_from_answer(
        function_block("stats/core.py", "Summary.size", "def size(self):\n    return len(self.xs)\n"), SOURCES
    )
    assert "    @property\n    def size(self):\n        return len(self.xs)\n" in new_text(kept)

    code = "    @property\n    def size(self) -> int:\n        return len(self.xs)\n"  # already indented
    replaced = edits_from_answer(function_block("stats/core.py", "size", code), SOURCES)
    assert [a.function for a in replaced.applied] == ["Summary.size"]  # a unique bare name resolves
    assert "    @property\n    def size(self) -> int:\n        return len(self.xs)\n\n\n@staticmethod" in (
        new_text(replaced)
    )

    dropped = edits_from_answer(
        function_block("stats/core.py", "helper", "@functools.cache\ndef helper(x):\n    return 2 * x\n"),
        SOURCES,
    )
    assert new_text(dropped).endswith("\n\n\n@functools.cache\ndef helper(x):\n    return 2 * x\n")


def test_a_nested_function_is_found_by_its_qualified_name():
    sources = {"m.py": "def outer():\n    def inner(y):\n        return y\n    return inner\n"}
    for name in ("outer.inner", "outer.<locals>.inner"):
        result = edits_from_answer(function_block("m.py", name, "def inner(y):\n    return y * 2\n"), sources)
        assert apply_edits(sources, result.edits)["m.py"] == (
            "def outer():\n    def inner(y):\n        return y * 2\n    return inner\n"
        )


def test_function_replacements_that_do_not_fit_are_refused():
    wrong_name = edits_from_answer(
        function_block("stats/core.py", "mean", "def average(xs):\n    pass\n"), SOURCES
    )
    assert wrong_name.problems[0].endswith("the code for mean in stats/core.py defines average, not mean")
    unknown = edits_from_answer(
        function_block("stats/core.py", "Summary.sprd", "def sprd(self):\n    pass\n"), SOURCES
    )
    assert unknown.problems[0].endswith(
        "stats/core.py has no function Summary.sprd. "
        "Close names: Summary.spread, Summary.size, Summary.__init__."
    )
    extra = edits_from_answer(
        function_block("stats/core.py", "mean", "import math\n\ndef mean(xs):\n    return math.fsum(xs)\n"),
        SOURCES,
    )
    assert "must be exactly one def (of mean), nothing before or after it" in extra.problems[0]


# -- line endings and encodings --------------------------------------------------------------------


def test_a_crlf_file_keeps_its_line_endings():
    sources = {"m.py": "def f(x):\r\n    if x > 0:\r\n        return x\r\n    return 0\r\n"}
    result = edits_from_answer(
        block("m.py", "    if x > 0:\n        return x\n", "    if x >= 0:\n        return x + 0\n"), sources
    )
    assert [a.match for a in result.applied] == ["exact"]
    text = apply_edits(sources, result.edits)["m.py"]
    assert text == "def f(x):\r\n    if x >= 0:\r\n        return x + 0\r\n    return 0\r\n"

    method = edits_from_answer(function_block("m.py", "f", "def f(x):\n    return abs(x)\n"), sources)
    assert apply_edits(sources, method.edits)["m.py"] == "def f(x):\r\n    return abs(x)\r\n"


def test_byte_offsets_count_non_ascii_text_in_utf_8():
    sources = {"greet.py": 'SALUT = "Grüße — ☃"\n\n\ndef greet(name):\n    return SALUT + name\n'}
    result = edits_from_answer(
        block("greet.py", "    return SALUT + name\n", '    return f"{SALUT}, {name} ✓"\n'), sources
    )
    (edit,) = result.edits
    text = sources["greet.py"]
    chars = text.index("    return SALUT")
    assert edit.start == len(text[:chars].encode("utf-8")) == chars + 6  # ü ß: 1 byte more each, — ☃: 2
    assert apply_edits(sources, result.edits)["greet.py"].endswith('    return f"{SALUT}, {name} ✓"\n')

    whole = edits_from_answer(
        function_block("greet.py", "greet", "def greet(name):\n    return name + '…'\n"), sources
    )
    assert whole.edits[0].start == len(text[: text.index("def greet")].encode("utf-8"))
    assert apply_edits(sources, whole.edits)["greet.py"].endswith("def greet(name):\n    return name + '…'\n")


def test_a_file_without_a_final_newline_stays_without_one():
    sources = {"m.py": "def f():\n    return 1"}
    result = edits_from_answer(block("m.py", "    return 1\n", "    return 2\n"), sources)
    assert apply_edits(sources, result.edits)["m.py"] == "def f():\n    return 2"


# -- paths that leave the project, and dependencies (the hostile-answers corpus found these) -------


def test_a_path_outside_the_project_is_refused_with_what_to_do_instead():
    said = {
        path: edits_from_answer(block(path, "x\n", "y\n"), SOURCES).problems
        for path in ("../../etc/passwd", "/etc/passwd", ".git/hooks/pre-commit", "~/.bashrc")
    }
    assert said["../../etc/passwd"] == (
        "block 1 (line 2 of your answer): refused: '../../etc/passwd' is outside the project; give a path "
        "inside it, e.g. pkg/core.py. Files you may edit: stats/__init__.py, stats/core.py, stats/io.py.",
    )
    assert (
        "refused: '/etc/passwd' is absolute; give a path relative to the project root"
        in said["/etc/passwd"][0]
    )
    assert "is inside .git/, selfheal's own snapshot" in said[".git/hooks/pre-commit"][0]
    assert "is absolute" in said["~/.bashrc"][0]


def test_a_malformed_path_is_refused_without_echoing_it_whole():
    nul = edits_from_answer(
        block("stats/core.py\0.txt", "        return x\n", "        return -x\n"), SOURCES
    )
    assert "contains a NUL byte or a line break" in nul.problems[0]
    huge = "stats/" + "a" * 60_000 + "/core.py"
    long = edits_from_answer(block(huge, "        return x\n", "        return -x\n"), SOURCES)
    assert "the path is too long (60014 characters" in long.problems[0]
    assert len(long.problems[0]) < 400  # the model is not sent its 60 kB path back


def test_a_repair_never_changes_the_projects_dependencies():
    pyproject = '[project]\nname = "stats"\ndependencies = []\n'
    sources = {
        **SOURCES,
        "setup.py": 'from setuptools import setup\n\nsetup(name="stats")\n',
        "pyproject.toml": pyproject,
        "setup.cfg": "[metadata]\nname = stats\n\n[options]\npackages = stats\n",
    }
    cases = {
        "requirements.txt": block("requirements.txt", "", "evil\n"),  # not a source: refused by name
        "requirements-dev.txt": block("requirements-dev.txt", "", "evil\n"),
        "setup.py": block(
            "setup.py", 'setup(name="stats")\n', 'setup(name="stats", install_requires=["evil"])\n'
        ),
        "pyproject.toml": block("pyproject.toml", "dependencies = []\n", 'dependencies = ["evil"]\n'),
        "setup.cfg": block("setup.cfg", "packages = stats\n", "packages = stats\ninstall_requires = evil\n"),
    }
    said = {name: edits_from_answer(answer, sources).problems for name, answer in cases.items()}
    assert said["requirements.txt"] == (
        "block 1 (line 2 of your answer): refused: requirements.txt declares the project's dependencies. "
        "A repair may not add, remove or change dependencies; fix the code with the standard library and "
        "the packages the project already uses",
    )
    assert (
        "refused: requirements-dev.txt declares the project's dependencies" in said["requirements-dev.txt"][0]
    )
    assert said["setup.py"][0].startswith("refused: setup.py is run when the project is installed")
    assert said["pyproject.toml"][0].startswith(
        "refused: pyproject.toml: changes its dependencies (project.dependencies)"
    )
    assert said["setup.cfg"][0].startswith("refused: setup.cfg: changes its dependencies (options)")
    # the rest of pyproject.toml stays editable where it is a source
    renamed = edits_from_answer(block("pyproject.toml", 'name = "stats"\n', 'name = "stats2"\n'), sources)
    assert renamed.ok


def test_json_edits_nested_too_deeply_and_lone_surrogates_are_problems_not_crashes():
    deep = edits_from_answer('{"edits": ' + "[" * 100_000 + "]" * 100_000, SOURCES)
    assert deep.problems == ("no edit blocks found in your answer (its JSON is nested too deeply)",)
    lone = edits_from_answer(
        block("stats/core.py", "        return x\n", "        return x  # \ud800\n"), SOURCES
    )
    assert lone.problems[0].startswith(
        "line 5 of your answer holds U+D800, a lone surrogate that is not valid"
    )
    assert "write the code as plain UTF-8 text" in lone.problems[0]
