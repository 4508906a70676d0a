"""The web app: the battle page and the HTTP JSON API (OpenAPI docs at /docs) over a `Registry` of sessions.

Every answer is JSON; a request that cannot be done gets a 4xx whose body names what was wrong, the field, and
what is allowed: {"error": ..., "field": ..., "fix": ...}. Changes reach every page open on the session as
server-sent events (GET /api/sessions/{id}/events), so two tabs stay in step.
"""
from __future__ import annotations

import asyncio
import hmac
import json
from pathlib import Path
from typing import Any, Literal

import yaml
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, Response, StreamingResponse
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, ConfigDict, Field
from starlette.exceptions import HTTPException

from engine.core.decision import Decision
from engine.core.encounter_file import load_encounter, parse_encounter
from engine.core.errors import IllegalAction, InputError
from engine.rulesets import available, get_ruleset

from agents.autopilot.chooser import DIFFICULTY, Chooser
from agents.autopilot.core import parse_session, read_session
from agents.autopilot.planner import plan_turn
from agents.autopilot.words import find_unit

from .live import Busy, Config, LiveSession
from .registry import Registry, UnknownSession
from .views import legal_view, log_entries, state_view

STATIC = Path(__file__).parent / "static"
LEGAL_FIX = "GET /api/sessions/{id}/legal lists what is legal now"
TOKEN_COOKIE = "tactician_token"


class ApiError(Exception):
    """A request that cannot be done: HTTP status, what is wrong, the field, and what is allowed."""

    def __init__(self, status: int, error: str, field: str = "", fix: str = ""):
        super().__init__(error)
        self.status, self.error, self.field, self.fix = status, error, field, fix


def _body(error: str, field: str = "", fix: str = "") -> dict:
    return {"error": error, "field": field, "fix": fix}


# ---- request bodies ---------------------------------------------------------------------------------------
class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class NewSession(Strict):
    """Where the battle comes from (exactly one of encounter, encounter_yaml, saved, state) and how to play it."""

    encounter: str | None = Field(None, description="path of an encounter YAML file on the server")
    encounter_yaml: str | None = Field(None, description="an encounter file's text")
    saved: str | None = Field(None, description="path of a saved session JSON on the server (`save FILE`)")
    state: dict[str, Any] | None = Field(None, description="a saved session JSON itself (GET .../save gives one)")
    npcs: str = Field("heuristic", description="POLICY for the NPCs: random, heuristic, anticipating, zoo:<ruleset>, a model .zip")
    pcs: str = Field("gm", description="gm (the GM decides the PCs' turns) or a POLICY that proposes them too")
    dice: Literal["seeded", "manual"] = Field("seeded", description="seeded: rolled here; manual: the table's")
    difficulty: Literal[tuple(DIFFICULTY)] = "deadly"  # type: ignore[valid-type]
    seed: int = 0
    initiative: dict[str, int] | None = Field(None, description="initiative totals by unit name; the rest rolled")


class DecisionBody(Strict):
    action: str = Field(..., description="a catalogue key of the ruleset (`tactician rules RULESET`)")
    target: int | None = Field(None, description="a unit id")
    square: tuple[int, int] | None = Field(None, description="[x, y] from 0")
    option: int = 0


class Decide(Strict):
    """A decision for the acting unit: structured, or in the GM's words (`command`, as typed at the terminal)."""

    decision: DecisionBody | None = None
    command: str | None = Field(None, description="e.g. move 5 7, shoot \"Trooper 1\", end")


class Command(Strict):
    line: str = Field(..., description="anything the terminal session takes: a decision, hp, place, add, remove, "
                                       "set, undo, load FILE, save FILE")


class Faces(Strict):
    faces: list[int] = Field(..., min_length=1, description="faces of the die asked for, then of the next dice")


class Reaction(Strict):
    choice: int = Field(..., description="the index of the chosen answer in the question's `options` (`labels` "
                                         "says what each is): 0 takes the usual reaction, the last lets it pass")


class Hp(Strict):
    unit: int | str = Field(..., description="unit id or name")
    hp: int


class Place(Strict):
    unit: int | str
    square: tuple[int, int]


class Condition(Strict):
    unit: int | str
    condition: str = Field(..., description="down, dead or a yes / no flag of the unit's state (its `conditions`)")
    on: bool = True


class SetNumber(Strict):
    unit: int | str
    key: str = Field(..., description="a number of the unit's state (its `numbers`)")
    value: int


class SaveTo(Strict):
    path: str = Field(..., description="file on the server to write the session to")


class Suggest(Strict):
    policy: str | None = Field(None, description="POLICY; default: the one proposing for the acting unit's side")
    explain: bool = True
    seed: int | None = Field(None, description="seed of the simulated dice; default: the session's")


class Empty(Strict):
    pass


# ---- the app ------------------------------------------------------------------------------------------------
def create_app(registry: Registry, token: str | None = None) -> FastAPI:
    """The app over `registry`. With a `token`, every request must carry it: header `Authorization: Bearer T`,
    or `?token=T` (the page's first load; it then rides in a cookie)."""
    app = FastAPI(title="Tactician", version="1",
                  description="The GM autopilot over HTTP: sessions, their state, legal decisions, proposals, "
                              "corrections, dice and live updates. Errors: {error, field, fix} with a 4xx status.")
    app.state.registry = registry

    # ---- errors ----
    @app.exception_handler(ApiError)
    async def _api_error(request: Request, e: ApiError):
        return JSONResponse(_body(e.error, e.field, e.fix), status_code=e.status)

    @app.exception_handler(Exception)
    async def _unexpected(request: Request, e: Exception):
        # a fault of ours, not of the request: said in a line (no traceback); a decision it interrupted was taken back
        return JSONResponse(_body(f"could not do that ({type(e).__name__}: {e})", "", "the session is as it was "
                                  "before the request; please report this with the request"), 500)

    @app.exception_handler(HTTPException)
    async def _http_error(request: Request, e: HTTPException):
        field = "method" if e.status_code == 405 else "path"
        return JSONResponse(_body(f"{e.detail}: {request.method} {request.url.path}", field,
                                  "the API's paths and methods are listed at /docs"), e.status_code)

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, e: RequestValidationError):
        errors = e.errors()
        first = errors[0] if errors else {"loc": ("body",), "msg": "invalid request", "type": ""}
        loc = [str(x) for x in first.get("loc", ()) if x not in ("body",)]
        field = ".".join(loc) or "body"
        if first.get("type") == "json_invalid":
            return JSONResponse(_body("the body is not valid JSON", "body",
                                      "send a JSON object, e.g. {\"decision\": {\"action\": \"end_turn\"}}"), 422)
        if not loc and first.get("type") in ("model_attributes_type", "dict_type", "model_type"):
            return JSONResponse(_body("the body must be a JSON object", "body", "see the request's schema at /docs"),
                                422)
        if first.get("type") == "extra_forbidden":
            return JSONResponse(_body(f"unknown field '{field}'", field, "see the request's schema at /docs"), 422)
        if first.get("type") == "missing":
            return JSONResponse(_body(f"'{field}' is missing", field, "see the request's schema at /docs"), 422)
        allowed = first.get("ctx", {}).get("expected") if isinstance(first.get("ctx"), dict) else None
        return JSONResponse(_body(f"{field}: {first.get('msg', 'invalid')}", field,
                                  f"expected {allowed}" if allowed else "see the request's schema at /docs"), 422)

    # ---- the token ----
    if token:
        @app.middleware("http")
        async def _token(request: Request, call_next):
            given = (request.headers.get("authorization", "").removeprefix("Bearer ").strip()
                     or request.query_params.get("token") or request.cookies.get(TOKEN_COOKIE) or "")
            if not hmac.compare_digest(given.encode(), token.encode()):
                return JSONResponse(_body("this server needs its token", "token",
                                          "send the header Authorization: Bearer TOKEN, or open the page with "
                                          "?token=TOKEN (tactician serve printed it)"), 401)
            response = await call_next(request)
            if request.query_params.get("token"):
                response.set_cookie(TOKEN_COOKIE, token, httponly=True, samesite="strict")
            return response

    # ---- helpers ----
    def work(sid: str, fn, field: str = "") -> Response:
        try:
            _, text = registry.work(sid, fn)
        except UnknownSession:
            raise _unknown(sid)
        except IllegalAction as e:
            raise ApiError(409, f"not legal: {e.reason}", field or "decision", LEGAL_FIX.replace("{id}", sid))
        except Busy as e:
            if e.question.kind == "reaction":
                raise ApiError(409, f"the session waits for the GM's answer: {e.question.prompt}", "choice",
                               f"POST /api/sessions/{sid}/reaction with {{\"choice\": N}}, N one of "
                               f"{e.question.choices()}; or POST /api/sessions/{sid}/undo")
            raise ApiError(409, f"the session waits for {e.args[0]}", "faces",
                           f"POST /api/sessions/{sid}/dice with the faces, or POST /api/sessions/{sid}/undo")
        except InputError as e:
            raise ApiError(422, e.what, e.where if field and e.where.startswith(field) else field or e.where, e.fix)
        return Response(text, media_type="application/json")

    def read(sid: str, fn):
        try:
            return registry.read(sid, fn)
        except UnknownSession:
            raise _unknown(sid)

    # ---- the page ----
    @app.get("/", include_in_schema=False)
    def index():
        return FileResponse(STATIC / "index.html")

    app.mount("/static", StaticFiles(directory=STATIC), name="static")

    # ---- sessions ----
    @app.get("/api/rulesets", summary="The registered rulesets")
    def rulesets():
        return [{"id": rs.id, "name": rs.name, "sides": list(rs.sides)} for rs in available().values()]

    @app.get("/api/sessions", summary="Every session of this server")
    def sessions():
        out = []
        for sid, entry in list(registry.entries.items()):
            enc = entry.live.enc
            out.append({"id": sid, "name": enc.name, "ruleset": enc.ruleset, "round": enc.round,
                        "winner": enc.winner, "url": f"/?session={sid}"})
        return out

    @app.post("/api/sessions", status_code=201, summary="Create a session from an encounter or a saved session")
    def create(body: NewSession):
        entry = new_session(registry, body)
        with entry.lock:
            return Response(entry.view_json(), status_code=201, media_type="application/json")

    @app.get("/api/sessions/{sid}", summary="The session's state: map, units, order, the acting unit, its legal "
                                            "decisions, the proposal, a pending question (a die, a reaction), "
                                            "the log")
    def state(sid: str):
        try:
            entry = registry.get(sid)
        except UnknownSession:
            raise _unknown(sid)
        with entry.lock:
            return Response(entry.view_json(), media_type="application/json")

    @app.delete("/api/sessions/{sid}", summary="Forget a session (and its file)")
    def delete(sid: str):
        try:
            registry.delete(sid)
        except UnknownSession:
            raise _unknown(sid)
        return {"deleted": sid}

    @app.get("/api/sessions/{sid}/legal", summary="The acting unit's legal decisions, in the ruleset's words")
    def legal(sid: str):
        return read(sid, legal_view)

    @app.get("/api/sessions/{sid}/log", summary="The narrated battle log (entries, and as Markdown)")
    def log(sid: str):
        return read(sid, lambda live: {"entries": log_entries(live.log.lines), "markdown": live.log.text()})

    @app.post("/api/sessions/{sid}/decision", summary="Play a decision for the acting unit (PC, or an NPC "
                                                      "instead of its proposal); 409 with the rule's reason if illegal")
    def decision(sid: str, body: Decide):
        if (body.decision is None) == (body.command is None):
            raise ApiError(422, "give exactly one of decision, command", "decision",
                           "{\"decision\": {\"action\": \"move\", \"square\": [5, 7]}} or {\"command\": \"move 5 7\"}")
        if body.command is not None:
            return work(sid, lambda live: _typed_decision(live, body.command), "command")

        def play(live: LiveSession):
            d = _checked(live, body.decision)
            live.run(live.decide_op(d))
        return work(sid, play, "decision")

    @app.post("/api/sessions/{sid}/accept", summary="Play the proposal of the acting unit's policy")
    def accept(sid: str, body: Empty | None = None):
        def play(live: LiveSession):
            live._ready()
            if live.gm_plays(live.enc.actor):
                raise InputError(f"{live.enc.actor.name} is the GM's to play: nothing is proposed", "accept",
                                 "POST .../decision instead")
            prop = live.proposal()
            live.run(live.decide_op(prop.decision, prop.notes))
        return work(sid, play, "accept")

    @app.post("/api/sessions/{sid}/veto", summary="Veto the proposal: the next best is proposed")
    def veto(sid: str, body: Empty | None = None):
        return work(sid, lambda live: live.veto_proposal(), "veto")

    @app.post("/api/sessions/{sid}/suggest", summary="The acting unit's whole turn planned on a copy, as "
                                                     "`tactician suggest --explain` prints it; changes nothing")
    def suggest(sid: str, body: Suggest | None = None):
        body = body or Suggest()

        def plan(live: LiveSession):
            enc = live.enc
            if enc.actor is None or enc.over:
                raise ApiError(409, "nobody is acting: the battle is over" if enc.over else "nobody is acting",
                               "session")
            seed = live.seed if body.seed is None else body.seed
            if body.policy is None:
                chooser = live.chooser_for(enc.actor)
                pol, spec = chooser.policy, (live.config.pcs if chooser is live.pc_chooser else live.config.npcs)
            else:
                try:
                    pol, spec = live.policy_fn(body.policy, live.ruleset, seed or 0, enc), body.policy
                except InputError as e:
                    raise ApiError(422, e.what, "policy", e.fix)
            return plan_turn(enc, live.ruleset, Chooser(pol, "deadly", seed), seed=seed, explain=body.explain,
                             policy=spec)
        return read(sid, plan)

    @app.post("/api/sessions/{sid}/dice", summary="Faces for the die the session waits for (manual dice); "
                                                  "several answer the next dice too")
    def dice(sid: str, body: Faces):
        return work(sid, lambda live: live.answer(body.faces), "faces")

    @app.post("/api/sessions/{sid}/reaction", summary="The GM's answer to the reaction question the session waits "
                                                      "for (a PC's attack of opportunity: take it or let it pass)")
    def reaction(sid: str, body: Reaction):
        return work(sid, lambda live: live.answer_reaction(body.choice), "choice")

    @app.post("/api/sessions/{sid}/undo", summary="Take back the last decision or correction (or the decision "
                                                  "waiting for a die or a reaction)")
    def undo(sid: str, body: Empty | None = None):
        return work(sid, lambda live: live.take_back(), "undo")

    @app.post("/api/sessions/{sid}/command", summary="A line as typed at the terminal session")
    def command(sid: str, body: Command):
        def run(live: LiveSession):
            head = body.line.strip().split()[0].lower() if body.line.strip() else ""
            if head == "undo":
                live.take_back()
            else:
                live.run({"op": "command", "line": body.line})
        return work(sid, run, "line")

    @app.post("/api/sessions/{sid}/hp", summary="Correction: set a unit's hit points (0 or less: down)")
    def hp(sid: str, body: Hp):
        return work(sid, lambda live: live.run({"op": "command", "line": f"hp {_ref(live, body.unit)} {body.hp}"}),
                    "hp")

    @app.post("/api/sessions/{sid}/place", summary="Correction: put a unit on a square")
    def place(sid: str, body: Place):
        x, y = body.square
        return work(sid, lambda live: live.run({"op": "command", "line": f"place {_ref(live, body.unit)} {x} {y}"}),
                    "square")

    @app.post("/api/sessions/{sid}/condition", summary="Correction: add or remove a condition")
    def condition(sid: str, body: Condition):
        word = "add" if body.on else "remove"
        return work(sid, lambda live: live.run({"op": "command",
                                                "line": f"{word} {_ref(live, body.unit)} {_word(body.condition)}"}),
                    "condition")

    @app.post("/api/sessions/{sid}/set", summary="Correction: set a number of a unit's state")
    def set_number(sid: str, body: SetNumber):
        return work(sid, lambda live: live.run({"op": "command", "line":
                                                f"set {_ref(live, body.unit)} {_word(body.key)} {body.value}"}),
                    "key")

    @app.get("/api/sessions/{sid}/save", summary="The session as the JSON `save FILE` writes (`tactician "
                                                 "autopilot --load` and `tactician suggest` read it)")
    def save_get(sid: str):
        data = read(sid, lambda live: live.save_data())
        return Response(json.dumps(data, indent=1), media_type="application/json",
                        headers={"Content-Disposition": f'attachment; filename="{sid}.json"'})

    @app.post("/api/sessions/{sid}/save", summary="Write the session to a file on the server")
    def save_post(sid: str, body: SaveTo):
        def save(live: LiveSession):
            live.messages.clear()
            live.cmd_save([body.path])
            return list(live.messages)
        try:
            told = read(sid, save)
        except InputError as e:
            raise ApiError(422, e.what, "path", e.fix)
        return {"saved": body.path, "messages": told}

    @app.get("/api/sessions/{sid}/events", summary="Server-sent events: the state (as GET /api/sessions/{id}) "
                                                   "now and after every change")
    async def events(sid: str):
        try:
            entry = registry.get(sid)
        except UnknownSession:
            raise _unknown(sid)
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue = asyncio.Queue()
        listener = (loop, queue)

        def first() -> str:
            with entry.lock:
                entry.listeners.add(listener)
                return entry.view_json()

        async def stream():
            try:
                yield f"event: state\ndata: {await asyncio.to_thread(first)}\n\n"
                while True:
                    try:
                        text = await asyncio.wait_for(queue.get(), timeout=15)
                    except asyncio.TimeoutError:
                        yield ": still here\n\n"
                        continue
                    while not queue.empty():  # only the newest state matters
                        text = queue.get_nowait()
                    yield f"event: state\ndata: {text}\n\n"
            finally:
                entry.listeners.discard(listener)

        return StreamingResponse(stream(), media_type="text/event-stream",
                                 headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})

    return app


def new_session(registry: Registry, body: NewSession):
    """A new session of `registry` from the body's encounter or saved session, started (initiative rolled, or
    waiting for its first die with manual dice); ApiError naming the field when it cannot be made."""
    sources = [k for k in ("encounter", "encounter_yaml", "saved", "state") if getattr(body, k) is not None]
    if len(sources) != 1:
        raise ApiError(422, "give exactly one of encounter, encounter_yaml, saved, state"
                       + (f" (given: {', '.join(sources)})" if sources else ""), "encounter",
                       "e.g. {\"encounter\": \"configs/encounters/saga/cantina_ambush.yaml\"}")
    src = sources[0]
    saved = None
    try:
        if src == "encounter":
            enc = load_encounter(body.encounter)
        elif src == "encounter_yaml":
            enc = parse_encounter(body.encounter_yaml, "encounter_yaml")
        elif src == "saved":
            saved = read_session(body.saved)
            enc = saved.enc
        else:
            saved = parse_session(body.state, "state")
            enc = saved.enc
    except InputError as e:
        raise ApiError(422, e.what, src if not e.where else f"{src}: {e.where}", e.fix)
    except yaml.YAMLError as e:
        raise ApiError(422, f"not valid YAML ({e})", src, "give an encounter file's text")
    rs = get_ruleset(enc.ruleset)
    config = Config(body.npcs, body.pcs, body.dice, body.difficulty, body.seed, body.encounter or body.saved or src)
    initiative = {_find(enc, name, f"initiative.{name}").id: total for name, total in (body.initiative or {}).items()}
    try:
        entry = registry.create(enc, rs, config)
    except InputError as e:
        field = "pcs" if body.pcs != "gm" and body.pcs in e.what else "npcs"
        raise ApiError(422, e.what, field, e.fix)
    live = entry.live
    with entry.lock:
        if saved is not None:
            live.resume(saved)
            live.log.note(f"GM loaded {config.source}")
        if not live.enc.order:
            try:
                live.run({"op": "start", "initiative": initiative or None})
            except InputError as e:
                registry.entries.pop(live.id, None)
                raise ApiError(422, e.what, e.where or "initiative", e.fix)
        else:
            live.sync_turn()
            live._changed()
        entry.publish()
    return entry


# ---- helpers --------------------------------------------------------------------------------------------
def _unknown(sid: str) -> ApiError:
    return ApiError(404, f"no session '{sid}'", "session", "GET /api/sessions lists the sessions of this server")


def _find(enc, ref: int | str, field: str):
    """A unit by id or name; ApiError naming the field and the units otherwise."""
    units = ", ".join(f"{u.id} {u.name}" for u in enc.units)
    if isinstance(ref, int):
        if 0 <= ref < len(enc.units):
            return enc.units[ref]
        raise ApiError(422, f"no unit with id {ref}", field, f"units: {units}")
    try:
        u = find_unit(enc, ref)
    except InputError as e:
        raise ApiError(422, e.what, field, e.fix)
    if u is None:
        raise ApiError(422, f"no unit called '{ref}'", field, f"units: {units}")
    return u


def _ref(live: LiveSession, ref: int | str) -> str:
    """A unit as the typed commands name it unambiguously: #id."""
    return f"#{_find(live.enc, ref, 'unit').id}"


def _word(text: str) -> str:
    """One word of a typed command, whatever the field held."""
    word = "".join(text.split())
    if not word or '"' in word or "'" in word:
        raise ApiError(422, f"'{text}' is not a name of the unit's state", "condition" if word else "key",
                       "one of the unit's `conditions` / `numbers` in GET /api/sessions/{id}")
    return word


def _checked(live: LiveSession, body: DecisionBody) -> Decision:
    """The decision of a request body, its ids and squares checked against the map (the rules check the rest)."""
    enc = live.enc
    if body.target is not None and not 0 <= body.target < len(enc.units):
        raise ApiError(422, f"no unit with id {body.target}", "decision.target",
                       "units: " + ", ".join(f"{u.id} {u.name}" for u in enc.units))
    if body.square is not None and not enc.grid.inside(*body.square):
        raise ApiError(422, f"{list(body.square)} is outside the {enc.grid.width}x{enc.grid.height} map",
                       "decision.square", f"x from 0 to {enc.grid.width - 1}, y from 0 to {enc.grid.height - 1}")
    if body.action not in live.ruleset.catalogue and body.action != "end_turn":
        raise ApiError(422, f"'{body.action}' is not an action of {live.ruleset.name}", "decision.action",
                       "one of: " + ", ".join(live.ruleset.catalogue))
    return Decision(body.action, body.target, tuple(body.square) if body.square is not None else None, body.option)


def _typed_decision(live: LiveSession, line: str) -> None:
    from agents.autopilot.words import parse_decision, tokens
    from agents.render import markers
    if live.pending is not None:
        raise Busy(live.pending.question)
    words = tokens(line)
    if words and words[0].lower() in live._COMMANDS:
        raise InputError(f"'{words[0]}' is a command, not a decision", "command", "POST .../command for commands")
    if live.enc.actor is None:
        raise IllegalAction("nobody is acting")
    d = parse_decision(line, live.battle, markers(live.enc))
    live.run(live.decide_op(d))
