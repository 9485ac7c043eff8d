"""Test-wide settings: the per-user cache (contractor.usercache) is off unless a test
turns it on in a folder of its own, so runs neither read nor leave state in ~/.cache."""

from __future__ import annotations

import os

os.environ.setdefault("CONTRACTOR_USER_CACHE", "0")
