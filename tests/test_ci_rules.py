"""The CI rule of tests/conftest.py: under EDGEVOX_CI or CI, nothing may skip or xfail."""

from __future__ import annotations

from pathlib import Path

import pytest

SUITE = """
import pytest

def test_skips():
    pytest.skip("no model")

@pytest.mark.skipif(True, reason="never here")
def test_skipif():
    pass

@pytest.mark.xfail(reason="known bad")
def test_xfails():
    assert False

@pytest.mark.xfail(reason="known bad")
def test_xpasses():
    pass

def test_passes():
    pass
"""


@pytest.fixture()
def suite(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    for var in ("EDGEVOX_CI", "CI"):
        monkeypatch.delenv(var, raising=False)
    pytester.makeconftest(Path(__file__).with_name("conftest.py").read_text(encoding="utf-8"))
    pytester.makepyfile(test_suite=SUITE)
    pytester.mkdir("needs").joinpath("test_needs_a_module.py").write_text(
        'import pytest\n\npytest.importorskip("no_such_module_xyz")\n', encoding="utf-8")
    return pytester


def test_outside_ci_skips_stay_skips(suite):
    result = suite.runpytest_inprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, skipped=3, xfailed=1, xpassed=1)  # 3 = 2 tests + 1 module


@pytest.mark.parametrize("var", ["EDGEVOX_CI", "CI"])
def test_under_ci_every_skip_and_xfail_fails(suite, monkeypatch, var):
    monkeypatch.setenv(var, "true" if var == "CI" else "1")
    result = suite.runpytest_inprocess("-p", "no:cacheprovider", "test_suite.py")
    result.assert_outcomes(passed=1, failed=3, errors=1)  # skipif acts in setup: an error
    result.stdout.fnmatch_lines(["*skipped under CI*no model*", "*xfailed under CI*known bad*",
                                 "*xpassed under CI*known bad*"])
    result = suite.runpytest_inprocess("-p", "no:cacheprovider", "needs")
    assert result.ret != 0  # a module-level importorskip is a collection error, the run stops
    result.stdout.fnmatch_lines(["*module skipped under CI*no_such_module_xyz*"])
