"""What the page and the API show of a session, as JSON: the map, the units, the initiative order, the acting
unit's card, its legal decisions in the ruleset's words, the proposal of its policy, the pending question and the
narrated log. Everything comes from the grid, the units and the ruleset's `unit_summary` / `describe` /
`estimate` / words, so every registered ruleset is shown the same way.
"""
from __future__ import annotations

from typing import Any

from engine.core.decision import END, Decision
from engine.core.economy import Economy
from engine.core.grid import TERRAINS

from agents.autopilot.chooser import Proposal, estimate_of
from agents.autopilot.planner import decision_json
from agents.autopilot.words import command_for, legal_listing, short_word
from agents.render import markers

from .live import LiveSession


def jsonable(value: Any) -> Any:
    """A ruleset's numbers and words as JSON (tuples as lists, anything else as its text)."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [jsonable(v) for v in value]
    return str(value)


def _estimate(est) -> dict | None:
    return None if est is None else est.to_dict()


def map_view(live: LiveSession) -> dict:
    """The squares as the rules see them now (open doors and broken objects included): one row of kind codes a
    map row, and the kinds they stand for."""
    g = live.enc.grid
    codes = {k: n for n, k in enumerate(TERRAINS)}
    rows = [[codes[g.kind(g.index(x, y))] for x in range(g.width)] for y in range(g.height)]
    return {"width": g.width, "height": g.height, "metric": g.metric, "kinds": list(TERRAINS), "rows": rows}


def unit_view(live: LiveSession, u, mark: str) -> dict:
    rs = live.ruleset
    try:
        summary = jsonable(rs.unit_summary(u))
    except Exception:  # a unit its ruleset cannot summarise is still shown
        summary = {}
    return {"id": u.id, "name": u.name, "side": u.side, "marker": mark, "template": u.template,
            "pos": list(u.pos), "hp": u.hp, "max_hp": u.max_hp, "down": u.down, "dead": u.dead,
            "acting": u.id == live.enc.actor_id, "summary": summary,
            "flags": {k: v for k, v in u.state.items() if isinstance(v, bool)},
            "numbers": {k: u.state[k] for k in live.numbers(u)}, "conditions": live.conditions(u)}


def decision_view(live: LiveSession, d: Decision, estimate: bool = True, words: dict | None = None) -> dict:
    """A decision with its words: what typing it takes (`command`), the ruleset's `describe`, its action's name
    and cost, and its estimate (null where the ruleset has none). `words`: the actions' short words known so far."""
    enc, rs = live.enc, live.ruleset
    spec = rs.catalogue.get(d.action)
    out = {"decision": decision_json(d), "command": command_for(d, enc, rs), "text": rs.describe(d, enc),
           "action": d.action, "name": spec.name if spec else ("End turn" if d == END else d.action),
           "word": _word(rs, d.action, words), "cost": spec.cost if spec else "free"}
    if spec is not None and spec.options > 1:
        out["option_label"] = rs.option_label(d, enc)
    if estimate:
        out["estimate"] = _estimate(estimate_of(live.battle, d)) if d.target is not None else None
    return out


def _word(rs, action: str, words: dict | None) -> str:
    if words is None:
        return short_word(rs, action)
    if action not in words:
        words[action] = short_word(rs, action)
    return words[action]


def legal_view(live: LiveSession) -> dict:
    """The acting unit's legal decisions (the battle's own enumeration: the mask and the typed commands read the
    same list), each with its words, and the terminal's `?` listing of them."""
    if live.enc.actor is None or live.enc.over or live.pending is not None:
        return {"decisions": [], "listing": []}
    legal = live.battle.legal()
    words: dict[str, str] = {}
    return {"decisions": [decision_view(live, d, words=words) for d in legal], "listing": legal_listing(live.battle)}


def proposal_view(live: LiveSession, prop: Proposal) -> dict:
    enc, rs = live.enc, live.ruleset
    d = prop.decision
    return {"actor": enc.actor.name, **decision_view(live, d, estimate=False), "probability": round(prop.prob, 4),
            "estimate": _estimate(prop.estimate), "tactics": list(prop.notes),
            "alternatives": [{**decision_view(live, a), "probability": round(p, 4)} for a, p in prop.alternatives(4)],
            "vetoed": [{"decision": decision_json(v), "command": command_for(v, enc, rs)}
                       for v in sorted(live.vetoed, key=repr)]}


def log_entries(lines: list[str]) -> list[dict]:
    """The narrated log (the Markdown battle log) as entries: heading, turn, item, note, block."""
    out: list[dict] = []
    block: list[str] | None = None
    for raw in lines:
        line = raw.strip("\n")
        if block is not None:
            if line.strip() == "```":
                out.append({"kind": "block", "text": "\n".join(block)})
                block = None
            else:
                block.append(line)
        elif line.strip() == "```":
            block = []
        elif line.startswith("# "):
            out.append({"kind": "title", "text": line[2:]})
        elif line.startswith("#"):
            out.append({"kind": "heading", "text": line.lstrip("#").strip()})
        elif line.startswith("**"):
            out.append({"kind": "turn", "text": line.replace("**", "")})
        elif line.startswith("- *") and line.endswith("*"):
            out.append({"kind": "note", "text": line[3:-1]})
        elif line.startswith("- "):
            out.append({"kind": "item", "text": line[2:]})
        elif line.strip():
            out.append({"kind": "text", "text": line})
    return out


def phase_of(live: LiveSession) -> str:
    """What the session waits for: start, question (a die, a reaction), gm (the GM decides), proposal (accept or
    veto), over."""
    enc = live.enc
    if live.pending is not None:
        return "question"
    if not enc.order:
        return "start"
    if enc.over or enc.actor is None:
        return "over"
    return "gm" if live.gm_plays(enc.actor) else "proposal"


_WAITING = {"die": "a die", "reaction": "a reaction"}  # what a pending question waits for, in the undo's words


def state_view(live: LiveSession, log: bool = True) -> dict:
    """The whole session as the page draws it (and `GET /api/sessions/{id}` returns)."""
    enc, rs = live.enc, live.ruleset
    mk = markers(enc)
    phase = phase_of(live)
    actor = enc.actor if phase in ("gm", "proposal", "question") else None
    card = None
    if actor is not None:
        try:
            conds = jsonable(rs.unit_summary(actor).get("conditions", []))
        except Exception:  # no summary: its yes / no flags that are set
            conds = []
        card = {"id": actor.id, "name": actor.name, "side": actor.side, "hp": actor.hp, "max_hp": actor.max_hp,
                "budget": dict(enc.budget), "left": Economy.describe(enc.budget),
                "conditions": conds or [k for k, v in actor.state.items() if v is True]}
    out = {
        "id": live.id, "name": enc.name, "version": live.version,
        "ruleset": {"id": rs.id, "name": rs.name, "sides": list(rs.sides), "phases": list(rs.phases)},
        "config": dict(live.config.__dict__),
        "round": enc.round, "phase": rs.phases[enc.phase_index], "round_limit": enc.round_limit,
        "winner": enc.winner, "waiting_for": phase, "gm_side": live.gm_side,
        "sides": enc.sides(), "map": map_view(live),
        "units": [unit_view(live, u, mk[u.id]) for u in enc.units],
        "order": [{"id": i, "name": enc.units[i].name, "side": enc.units[i].side,
                   "initiative": enc.initiative.get(i), "acting": i == enc.actor_id, "active": enc.units[i].active}
                  for i in enc.order],
        "actor": card,
        "legal": legal_view(live) if phase in ("gm", "proposal") else {"decisions": [], "listing": []},
        "proposal": proposal_view(live, live.proposal()) if phase == "proposal" else None,
        "question": live.pending.question.to_dict() if live.pending is not None else None,
        "undo": (f"{live.pending.what} (waiting for {_WAITING.get(live.pending.question.kind, 'an answer')})"
                 if live.pending is not None else live.undo_stack[-1].what if live.undo_stack else None),
        "messages": list(live.messages), "decisions": live.decisions,
    }
    if log:
        out["log"] = log_entries(live.log.lines)
    return out
