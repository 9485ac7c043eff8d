"""The CrossHair backend must not switch off icontract's and deal's run-time checks for the
rest of the process (importing CrossHair does that, and the backend undoes it)."""

import subprocess
import sys
import textwrap

PROBE = textwrap.dedent('''
    import icontract, deal
    import contractor.crosshair_backend.harness  # imports crosshair.core_and_libs
    @icontract.require(lambda x: x > 0, "x must be positive")
    def f(x):
        return x
    @deal.pre(lambda x: x > 0)
    def g(x):
        return x
    caught = []
    try:
        f(-1)
    except icontract.ViolationError:
        caught.append("icontract")
    try:
        g(-1)
    except deal.PreContractError:
        caught.append("deal")
    print(",".join(caught))
''')


def test_contract_checks_stay_on_after_importing_the_crosshair_backend(tmp_path):
    probe = tmp_path / "probe.py"  # a file, so icontract can read the lambda's source
    probe.write_text(PROBE)
    out = subprocess.run([sys.executable, str(probe)], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "icontract,deal"


def test_checks_are_off_inside_a_crosshair_search_and_back_on_after():
    import icontract._checkers as checkers

    from contractor.crosshair_backend.isolation import crosshair_settings

    before = checkers._assert_preconditions
    with crosshair_settings():
        assert checkers._assert_preconditions is not before
    assert checkers._assert_preconditions is before
