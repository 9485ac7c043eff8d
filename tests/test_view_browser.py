"""`contractor view` in headless Chromium (Debian's `chromium`, driven by Playwright), with
every request to anything but the view's own 127.0.0.1 server blocked and recorded."""

from __future__ import annotations

import json
import shutil
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path
from urllib.parse import urlparse

import pytest
from view_helpers import BAD, ROOT, SAMPLES, flags_source, slow_analyse

from contractor import api
from contractor.view.server import running
from contractor.view.session import Session

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(CHROMIUM is None, reason="needs Chromium (`apt-get install chromium`; .ci/run installs it)"),
]


@pytest.fixture
def browse(monkeypatch):
    """browse(root) -> (page, blocked): a page on a running view of `root`; `blocked`
    collects every request that tried to leave 127.0.0.1."""
    sync_api = pytest.importorskip("playwright.sync_api")
    with ExitStack() as stack:
        def open_view(root: Path, **kwargs):
            session = Session(root, api.InferOptions(backend="z3"), **kwargs)
            stack.callback(session.close)
            url = stack.enter_context(running(session))
            playwright = stack.enter_context(sync_api.sync_playwright())
            profile = stack.enter_context(tempfile.TemporaryDirectory(prefix="contractor-view-chromium-"))
            context = playwright.chromium.launch_persistent_context(
                profile, executable_path=CHROMIUM, headless=True, args=FLAGS,
                viewport={"width": 1400, "height": 900}, accept_downloads=True)
            stack.callback(context.close)
            blocked: list[str] = []

            def guard(route):
                if urlparse(route.request.url).hostname == "127.0.0.1":
                    route.continue_()
                else:
                    blocked.append(route.request.url)
                    route.abort()

            context.route("**/*", guard)
            page = context.pages[0] if context.pages else context.new_page()
            errors: list[str] = []
            page.on("pageerror", lambda exc: errors.append(str(exc)))
            stack.callback(lambda: errors == [] or pytest.fail(f"script errors in the page: {errors}"))
            page.goto(url)
            return page, blocked
        yield open_view


def _until(condition, timeout: float = 60) -> None:
    """Poll `condition` (page.wait_for_function would need eval, which the page's CSP forbids)."""
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def _scale(page) -> float:
    return float(page.get_attribute("#canvas", "data-scale"))


def test_door_in_the_browser(browse, monkeypatch, tmp_path):
    monkeypatch.chdir(ROOT)
    page, blocked = browse(SAMPLES, watch=False, render_interval=0, worker=slow_analyse)
    page.click(".class-item[data-target='samples/door.py:Door']")
    # live: rows and diagrams arrive while the exploration runs (slowed to ~2 s here)
    _until(lambda: page.get_attribute("body", "data-status") == "running"
           and page.locator("#states tbody tr").count() >= 2
           and page.locator("#canvas g.node.state").count() >= 1)
    assert page.inner_text("#progress").startswith(("exploring", "reading"))
    assert not page.is_disabled("#stop")
    page.wait_for_selector("body[data-status=done]", state="attached", timeout=60_000)
    assert int(page.get_attribute("#canvas", "data-redraws")) >= 3
    assert page.is_disabled("#stop")

    # the diagram and the tables hold the door's 6 states and 15 transitions
    assert page.locator("#canvas g.node.state").count() == 6
    assert page.locator("#canvas g.edge.transition").count() == 15
    assert page.locator("#canvas g.edge.initialization").count() == 1
    assert page.locator("#states tbody tr").count() == 6
    assert page.locator("#transitions tbody tr").count() == 15
    assert page.inner_text("#progress").startswith("done: 6 states, 15 transitions (0 may)")
    assert page.locator("#canvas ellipse + ellipse").count() == 0  # no double circle

    # tooltips: a state's enabled methods and invariant, a transition's witness
    page.hover("#state-S1")
    tip = page.locator("#tooltip")
    assert tip.is_visible()
    assert tip.inner_text() == ("S1 (initial)\nenabled: alarm, open, start\n"
                                "invariant: self.closed and not self.moving")
    page.hover("#transition-0 text")
    assert "S1 --alarm--> S2" in tip.inner_text()
    assert "object before: closed=True, moving=False, danger=False" in tip.inner_text()
    assert "changed: closed=False, danger=True" in tip.inner_text()

    # click: the state's row and its edges are highlighted
    page.click("#state-S1")
    assert "hl" in page.get_attribute("#row-state-S1", "class")
    touching = page.locator("#canvas g.edge.hl").count()
    assert touching == 1 + 3 + 2  # __init__; alarm, open, start out of S1; close and stop into it
    assert page.locator("#transitions tr.hl").count() == 3 + 2

    # zoom: buttons, wheel and fit
    fitted = _scale(page)
    page.click("#zoom-in")
    assert _scale(page) == pytest.approx(fitted * 1.25, rel=1e-2)
    page.mouse.move(700, 300)
    page.mouse.wheel(0, -300)
    assert _scale(page) > fitted * 1.3
    assert page.inner_text("#zoom-level") == f"{round(_scale(page) * 100)}%"
    page.click("#zoom-fit")
    assert _scale(page) == pytest.approx(fitted, rel=1e-2)
    box = page.locator("#canvas svg").bounding_box()
    frame = page.locator("#diagram").bounding_box()
    assert box["x"] >= frame["x"] - 1 and box["x"] + box["width"] <= frame["x"] + frame["width"] + 1

    # exports: JSON equals `contractor infer`'s, SVG and PNG are what they say
    with page.expect_download() as download:
        page.click("#export-json")
    assert download.value.suggested_filename == "Door.typestate.json"
    data = json.loads(Path(download.value.path()).read_text())
    expected = api.infer("samples/door.py:Door", api.InferOptions(backend="z3")).to_dict()
    assert data["states"] == expected["states"] and data["transitions"] == expected["transitions"]
    with page.expect_download() as download:
        page.click("#export-svg")
    assert Path(download.value.path()).read_text().count('class="node state') == 6
    with page.expect_download() as download:
        page.click("#export-png")
    assert download.value.suggested_filename == "Door.typestate.png"
    assert Path(download.value.path()).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"

    assert blocked == []


def test_findings_link_to_their_source_line_and_stop(browse, monkeypatch, tmp_path):
    (tmp_path / "bad.py").write_text(BAD)
    monkeypatch.chdir(tmp_path)
    page, blocked = browse(tmp_path, watch=False)
    page.fill("#target-input", "bad.py:Bad")
    page.click("#target-form button")
    page.wait_for_selector("body[data-status=done]", state="attached", timeout=60_000)
    finding = page.locator("#findings li").first
    assert "breaks_invariant" in finding.inner_text() and "dec() can break the class invariant" in finding.inner_text()
    finding.locator("a.line-link").click()
    page.wait_for_selector("#source .line.target")
    assert page.inner_text("#source .line.target").strip() == "def dec(self) -> None:"
    assert page.get_attribute("#source .line.target", "data-n") == "12"

    # a stuck state: drawn grey, its finding links to it
    (tmp_path / "jam.py").write_text('class Jam:\n    def __init__(self) -> None:\n        self.n = 0\n\n'
                                     '    def go(self) -> None:\n        """pre: self.n == 0"""\n        self.n = 1\n')
    page.fill("#target-input", "jam.py:Jam")
    page.click("#target-form button")
    _until(lambda: page.inner_text("#class-title").startswith("Jam")
           and page.get_attribute("body", "data-status") == "done")
    assert page.get_attribute("#state-S2", "class") == "node state stuck"
    assert page.get_attribute("#state-S2 ellipse", "fill") == "lightgrey"
    page.locator("#findings a.state-link").click()
    assert "hl" in page.get_attribute("#row-state-S2", "class")
    assert "selected" in page.get_attribute("#state-S2", "class")
    assert blocked == []


def test_a_big_typestate_keeps_the_page_responsive(browse, monkeypatch, tmp_path):
    (tmp_path / "flags.py").write_text(flags_source(8))  # 256 states, 2048 transitions
    monkeypatch.chdir(tmp_path)
    page, blocked = browse(tmp_path, watch=False)
    page.click(".class-item[data-target='flags.py:Flags']")
    page.wait_for_selector("body[data-status=done]", state="attached", timeout=120_000)
    assert page.inner_text("#transition-count") == "2048" and page.inner_text("#state-count") == "256"
    assert page.locator("#transitions tbody tr").count() == 1000 + 1
    assert page.inner_text("#transitions tr.more") == "… and 1048 more (export JSON for all)"
    assert page.locator("#states tbody tr").count() == 256
    with page.expect_download() as download:
        page.click("#export-json")
    assert len(json.loads(Path(download.value.path()).read_text())["transitions"]) == 2048
    assert blocked == []
