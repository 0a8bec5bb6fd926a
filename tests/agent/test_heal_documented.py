"""A whole heal where two candidates pass every visible test and the module's docstring says
which one the author meant.

Through the public API with the local sandbox and real pytest; `heal_repo` checks the proof
obligations, then the concrete fix.
"""

from __future__ import annotations

import pytest

from selfheal.agent.report.confidence import measure
from tests.agent.test_heal_bug_shapes import heal_repo
from tests.conftest import diff_lines

pytestmark = pytest.mark.slow


def test_the_rounding_the_docstring_names_is_chosen_among_those_the_tests_allow(
    make_repo, run_heal, tmp_path
):
    result = heal_repo(
        make_repo,
        run_heal,
        tmp_path,
        {
            "invoice/__init__.py": "",
            "invoice/tax.py": '''
            """Invoice lines. Each line's tax is rounded to the cent half to even (banker's
            rounding), so that rounding errors cancel out over many lines."""

            import decimal
            from decimal import Decimal

            CENT = Decimal("0.01")


            def line_tax(amount: Decimal, rate: Decimal) -> Decimal:
                return (amount * rate).quantize(CENT, rounding=decimal.ROUND_CEILING)
            ''',
            "tests/test_tax.py": """
            from decimal import Decimal

            from invoice.tax import line_tax


            def test_exact_tax():
                assert line_tax(Decimal("3.00"), Decimal("0.1")) == Decimal("0.30")


            def test_above_half_a_cent_rounds_up():
                assert line_tax(Decimal("10.00"), Decimal("0.0727")) == Decimal("0.73")


            def test_half_a_cent_rounds_to_the_even_cent():
                assert line_tax(Decimal("10.00"), Decimal("0.0725")) == Decimal("0.72")
            """,
        },
        failing={"tests/test_tax.py::test_half_a_cent_rounds_to_the_even_cent"},
    )
    removed, added = diff_lines(result.patch)
    assert removed == ["    return (amount * rate).quantize(CENT, rounding=decimal.ROUND_CEILING)"]
    assert added == ["    return (amount * rate).quantize(CENT, rounding=decimal.ROUND_HALF_EVEN)"]
    # the confidence reads the agreement of the chosen candidate with the documentation
    [fix] = result.fixes
    assert result.documented == {fix.key: True}
    assert measure(result)["documented"] is True
