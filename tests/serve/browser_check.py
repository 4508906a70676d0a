"""The page in a real headless Chromium, as a person would use it: a server started with `tactician serve`, PC
decisions played by clicking the unit and then a highlighted square or target, an NPC proposal vetoed and the next
accepted by their buttons, an update made elsewhere reaching the page without a reload, a screenshot taken; a PC's
attack of opportunity answered by its buttons.

It needs Chromium (Debian's `chromium`) and fails, saying so, without it. So that the suite needs nothing beyond
what `bootstrap.py` installs, it is not collected by default (its name is not test_*.py); run it by name:

    python3 ./bootstrap.py test tests/serve/browser_check.py
"""
from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from contextlib import contextmanager
from pathlib import Path

from ..autopilot.reactions import DUELS
from .chromium import Chromium, find_chromium

ROOT = Path(__file__).resolve().parents[2]
ENCOUNTER = ROOT / "configs" / "encounters" / "saga" / "cantina_ambush.yaml"
SHOT = "TACTICIAN_SCREENSHOT"  # where to keep the screenshot too (a path), for a person to look at


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _get(url: str):
    with urllib.request.urlopen(url, timeout=5) as r:
        return json.loads(r.read())


def _post(url: str, body: dict):
    req = urllib.request.Request(url, json.dumps(body).encode(), {"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=5) as r:
        return json.loads(r.read())


def _serve(port: int, folder: Path) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "agents.cli", "serve", str(ENCOUNTER), "--port", str(port),
                             "--sessions", str(folder), "--seed", "3", "--npcs", "heuristic"], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def _answering(proc: subprocess.Popen, port: int) -> None:
    for _ in range(400):
        if proc.poll() is not None:
            raise AssertionError(f"tactician serve stopped: {proc.stdout.read()}")
        try:
            if _get(f"http://127.0.0.1:{port}/api/sessions"):
                return
        except OSError:
            time.sleep(0.05)
    proc.kill()
    raise AssertionError("tactician serve did not answer")


@contextmanager
def _page(tmp_path):
    """(the server's address, a headless Chromium): `tactician serve` started on the cantina, both stopped after."""
    binary = find_chromium()
    assert binary, "the browser test needs Chromium: apt-get install chromium (.ci/run installs it)"
    port = _free_port()
    server = _serve(port, tmp_path / "sessions")
    browser = None
    try:
        browser = Chromium(binary)  # starts while the server does
        _answering(server, port)
        yield f"http://127.0.0.1:{port}", browser
    finally:
        if browser is not None:
            browser.close()
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


def test_the_page_plays_a_battle_by_clicking(tmp_path):
    with _page(tmp_path) as (base, browser):
        sid = _get(f"{base}/api/sessions")[0]["id"]
        browser.open(f"{base}/?session={sid}")
        browser.wait_for("typeof state !== 'undefined' && state !== null && document.querySelector('#map g.unit')",
                         what="the map with its units")
        first = browser.evaluate("JSON.stringify([...document.querySelectorAll('#map g.unit')].map("
                                 "g => g.querySelector('circle').getAttribute('cx') + ',' + "
                                 "g.querySelector('circle').getAttribute('cy')))")
        log_before = browser.evaluate("document.querySelectorAll('#log .item').length")
        played = {"gm": 0, "proposal": 0, "question": 0}
        vetoed = False
        for _ in range(40):
            if played["gm"] >= 2 and played["proposal"] >= 2 and vetoed:
                break
            waiting, version, actor = browser.evaluate("[state.waiting_for, state.version, state.actor && state.actor.id]")
            if waiting == "over":
                break
            if waiting == "question":  # a PC's reaction: taken
                browser.click("#reactions button[data-choice='0']")
            elif waiting == "gm":
                browser.click(f"#map g.unit[data-id='{actor}']")
                browser.wait_for(f"selected === {actor}", what="the acting unit selected")
                squares, targets = browser.evaluate("[document.querySelectorAll('#map rect.hl').length, "
                                                    "document.querySelectorAll('#map circle.target').length]")
                legal = browser.evaluate("state.legal.decisions.filter(d => d.decision.square).length")
                assert squares == len({tuple(d) for d in browser.evaluate(
                    "state.legal.decisions.filter(d => d.decision.square && d.action === squareAction)"
                    ".map(d => d.decision.square)")}) and (squares > 0) == (legal > 0)
                if targets and (played["gm"] == 1 or not squares):
                    browser.click("#map circle.target")  # a target this time
                    if browser.evaluate("!document.getElementById('menu').hidden"):
                        browser.click("#menu button")
                elif squares:
                    browser.click("#map rect.hl")
                else:  # nothing on the map: a decision of the list
                    browser.click("#act ul.decisions button")
            else:
                if not vetoed:
                    proposed = browser.evaluate("JSON.stringify(state.proposal.decision)")
                    browser.click("#veto")
                    browser.wait_for(f"state.version > {version}", what="the veto")
                    assert browser.evaluate("state.proposal.vetoed.length") == 1
                    assert browser.evaluate("JSON.stringify(state.proposal.decision)") != proposed
                    assert "Vetoed" in browser.evaluate("document.getElementById('act').innerText")
                    vetoed = True
                    version = browser.evaluate("state.version")
                browser.click("#accept")
            browser.wait_for(f"state.version > {version}", what="the decision played")
            played[waiting] += 1
        assert played["gm"] >= 2 and played["proposal"] >= 2 and vetoed, played
        # a change made elsewhere (another tab, a virtual tabletop) reaches the page without a reload
        version = browser.evaluate("state.version")
        _post(f"{base}/api/sessions/{sid}/hp", {"unit": "Thug", "hp": 1})
        browser.wait_for(f"state.version > {version} && state.units[6].hp === 1", what="the API's change")
        assert "1/14" in browser.evaluate("document.getElementById('unit').innerText")
        after = browser.evaluate("JSON.stringify([...document.querySelectorAll('#map g.unit')].map("
                                 "g => g.querySelector('circle').getAttribute('cx') + ',' + "
                                 "g.querySelector('circle').getAttribute('cy')))")
        assert after != first  # units moved on the map
        assert browser.evaluate("document.querySelectorAll('#log .item').length") > log_before
        assert browser.evaluate("document.querySelectorAll('#log .note').length") >= 1  # the veto, noted
        png = browser.screenshot(tmp_path / "battle.png")
        assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 20000
        if os.environ.get(SHOT):
            Path(os.environ[SHOT]).write_bytes(png)


def test_a_pcs_reaction_is_answered_by_its_buttons(tmp_path):
    with _page(tmp_path) as (base, browser):
        text, npc, goal = DUELS["saga"]
        s = _post(f"{base}/api/sessions", {"encounter_yaml": text, "npcs": "random",
                                           "initiative": {"Kira": 20, npc: 1}})
        sid = s["id"]
        _post(f"{base}/api/sessions/{sid}/decision", {"command": "end"})
        s = _post(f"{base}/api/sessions/{sid}/decision", {"command": f"move {goal[0]} {goal[1]}"})
        assert s["question"]["kind"] == "reaction"
        browser.open(f"{base}/?session={sid}")
        browser.wait_for("document.querySelectorAll('#reactions button').length === 2", what="the reaction's buttons")
        said = browser.evaluate("document.getElementById('act').innerText")
        assert f"Kira may take an attack of opportunity on {npc}" in said and "Let it pass" in said, said
        browser.click("#reactions button[data-choice='1']")
        browser.wait_for(f"state.question === null && state.units[1].pos[0] === {goal[0]}", what="the walk played")
        assert browser.evaluate("state.units[1].hp") == 18
        assert f"Kira lets {npc} go" in browser.evaluate("document.getElementById('log').innerText")
