"""How long an NPC proposal takes to reach the page (`tactician bench --only serve`): a real server on a loopback
port, a page's event stream open on it, and the time from sending a GM's accept to the stream bringing the state
with the next NPC's proposal (the decision played, the session written to its file, the proposal chosen, the
state drawn up and sent)."""
from __future__ import annotations

import http.client
import json
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np

from engine.core.ruleset import Ruleset
from engine.core.state import Encounter


def _events(resp):
    """The states of a server-sent event stream, as they come."""
    event = None
    while True:
        line = resp.fp.readline()
        if not line:
            return
        text = line.decode().rstrip("\n")
        if text.startswith("event: "):
            event = text[7:]
        elif text.startswith("data: ") and event == "state":
            yield json.loads(text[6:])


def proposal_latency(ruleset: Ruleset, enc0: Encounter, where: str, decisions: int = 200, seed: int = 0,
                     npcs: str = "heuristic") -> dict[str, Any]:
    """p50 / p99 milliseconds from a POST accept to the event bringing the next NPC proposal, over `decisions` of
    them, on encounter `enc0` (named `where`; both sides proposed: the PCs at random, the NPCs by `npcs`)."""
    import uvicorn

    from .app import NewSession, create_app, new_session
    from .registry import Registry

    times: list[float] = []
    with tempfile.TemporaryDirectory() as folder:
        registry = Registry(Path(folder))
        server = uvicorn.Server(uvicorn.Config(create_app(registry), host="127.0.0.1", port=0, log_level="error",
                                               lifespan="off"))
        thread = threading.Thread(target=server.run, daemon=True)
        thread.start()
        for _ in range(400):
            if server.started:
                break
            time.sleep(0.01)
        port = server.servers[0].sockets[0].getsockname()[1]
        games = 0
        try:
            while len(times) < decisions:
                body = NewSession(state=enc0.clone().to_dict(), npcs=npcs, pcs="random", seed=seed + games)
                sid = new_session(registry, body).live.id
                games += 1
                stream = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
                stream.request("GET", f"/api/sessions/{sid}/events")
                states = _events(stream.getresponse())
                state = next(states)
                post = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
                while state["waiting_for"] == "proposal" and len(times) < decisions:
                    t0 = time.perf_counter()
                    post.request("POST", f"/api/sessions/{sid}/accept", b"{}", {"Content-Type": "application/json"})
                    post.getresponse().read()
                    version = state["version"]
                    state = next(s for s in states if s["version"] > version)
                    if state["proposal"] is not None and state["actor"]["side"] == ruleset.sides[-1]:
                        times.append(time.perf_counter() - t0)
                stream.close()
                post.close()
        finally:
            server.should_exit = True
            thread.join(timeout=10)
    ms = np.array(times) * 1000
    return {"encounter": where, "decisions": int(ms.size), "p50_ms": round(float(np.percentile(ms, 50)), 2),
            "p99_ms": round(float(np.percentile(ms, 99)), 2), "mean_ms": round(float(ms.mean()), 2)}
