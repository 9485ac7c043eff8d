"""How many examples the Hypothesis tests try: full counts in CI and in the full suite, fewer
in the quick loop.

- CI (`CI=true`): Hypothesis's own "ci" profile, derandomized, each test's full count;
- the full suite (`pytest`): the "default" profile, each test's full count;
- the quick loop (`pytest -m "not slow"`, outside CI): the "quick" profile, an eighth of each
  count (at least QUICK_MINIMUM); the explicit @example cases and the examples saved in the
  local database after a failure still run first. `--hypothesis-profile NAME` chooses any.

A test that sets its own count writes `max_examples=examples(40)`: a count given to
@settings overrides the profile's, so the profile could not scale it otherwise.
"""

from __future__ import annotations

from hypothesis import settings

QUICK = "quick"
QUICK_DIVISOR = 8
QUICK_MINIMUM = 5

settings.register_profile(QUICK, max_examples=100 // QUICK_DIVISOR)  # an unscaled test: of the default 100


def wants_quick(markexpr: str, profile_option: str | None) -> bool:
    """Whether a run with this `-m` expression and `--hypothesis-profile` value is the quick
    loop: slow tests deselected, no profile asked for, and not CI (whose "ci" profile
    Hypothesis loads by itself)."""
    return "not slow" in markexpr and profile_option is None and settings.get_current_profile_name() == "default"


def examples(full: int) -> int:
    """`full` examples, or fewer under the quick profile."""
    if settings.get_current_profile_name() == QUICK:
        return min(full, max(QUICK_MINIMUM, full // QUICK_DIVISOR))
    return full
