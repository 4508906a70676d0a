"""Masked evaluation: Wilson intervals, both seats, metrics from events, illegal decisions counted."""
import math
import re
from pathlib import Path

import pytest

from agents.evaluate import encounter_source, evaluate, wilson
from engine.core.decision import Decision
from engine.core.policy import Policy, RandomPolicy
from engine.policies.heuristic import HeuristicPolicy
from engine.rulesets import get_ruleset


def test_wilson_known_values():
    lo, hi = wilson(5, 10)
    assert lo == pytest.approx(0.2366, abs=1e-4) and hi == pytest.approx(0.7634, abs=1e-4)
    lo, hi = wilson(0, 10)
    assert lo == 0.0 and hi == pytest.approx(0.2775, abs=1e-4)
    lo, hi = wilson(10, 10)
    assert hi == 1.0 and lo == pytest.approx(0.7225, abs=1e-4)
    assert wilson(0, 0) == (0.0, 1.0)
    # symmetric, and narrower with more episodes
    assert wilson(3, 20)[0] == pytest.approx(1 - wilson(17, 20)[1])
    assert (wilson(200, 400)[1] - wilson(200, 400)[0]) < (wilson(5, 10)[1] - wilson(5, 10)[0])
    assert wilson(50, 400)[0] < 50 / 400 < wilson(50, 400)[1]


def _small_source(rs):
    return encounter_source(rs, generator={"width": 10, "height": 10, "sizes": (1, 2)}, round_limit=8)


def test_evaluation_plays_both_seats_of_each_encounter():
    rs = get_ruleset("saga")
    summary, stats = evaluate(RandomPolicy(1), RandomPolicy(2), rs, episodes=6, seed=3, source=_small_source(rs))
    assert summary["episodes"] == 6
    assert [s.side for s in stats] == [rs.sides[0], rs.sides[1]] * 3
    assert set(summary["by_seat"]) == set(rs.sides[:2])
    assert all(v["episodes"] == 3 for v in summary["by_seat"].values())
    assert summary["wins"] + summary["draws"] + summary["losses"] == 6
    assert math.isclose(summary["win_rate"] + summary["draw_rate"] + summary["loss_rate"], 1.0)
    # same seed, same battles
    again, _ = evaluate(RandomPolicy(1), RandomPolicy(2), rs, episodes=6, seed=3, source=_small_source(rs))
    assert again == summary


def test_agreement_sets_the_policys_decisions_beside_the_probes_without_changing_the_battles():
    """`probe`: at each of the policy's decisions the probe's choice is asked, never played; the summary's
    `agreement` counts the same decisions, the same actions, and the commonest departures."""
    from agents.evaluate import SAME_ACTION

    rs = get_ruleset("saga")
    plain, _ = evaluate(RandomPolicy(1), HeuristicPolicy(2), rs, episodes=6, seed=3, source=_small_source(rs))
    probed, stats = evaluate(RandomPolicy(1), HeuristicPolicy(2), rs, episodes=6, seed=3, source=_small_source(rs),
                             probe=HeuristicPolicy(5))
    a = probed.pop("agreement")
    assert probed == plain and "agreement" not in plain  # the same battles, decision for decision
    assert a["decisions"] == plain["decisions"] == sum(s.probed for s in stats)
    assert 0 <= a["rate"] <= a["same_action_rate"] <= 1
    for s in stats:
        assert s.agreed + sum(s.departures.values()) == s.probed == s.decisions
    assert a["departures"] and all(d["policy"] != d["probe"] for d in a["departures"])
    shares = [d["share"] for d in a["departures"]]
    assert shares == sorted(shares, reverse=True) and a["rate"] + sum(shares) <= 1 + 1e-9
    # the heuristic probed by itself agrees but for ties between equal squares; random play hardly ever does
    own, _ = evaluate(HeuristicPolicy(1), HeuristicPolicy(2), rs, episodes=6, seed=3, source=_small_source(rs),
                      probe=HeuristicPolicy(1))
    assert own["agreement"]["same_action_rate"] > 0.9 and own["agreement"]["rate"] > 0.6 > 0.3 > a["rate"]
    assert all(d["probe"] == SAME_ACTION for d in own["agreement"]["departures"][:1])


def test_results_are_broken_down_by_the_units_a_side():
    """by_size: the episodes of each size ("2v2": the policy's side first), adding up to the whole."""
    rs = get_ruleset("saga")
    summary, stats = evaluate(RandomPolicy(1), RandomPolicy(2), rs, episodes=20, seed=3, source=_small_source(rs))
    sizes = summary["by_size"]
    assert set(sizes) == {"1v1", "2v2"} and list(sizes) == ["1v1", "2v2"]  # mirrored, 1-2 units a side, in order
    for size, v in sizes.items():
        these = [s for s in stats if s.size == size]
        n = int(size.split("v")[0])
        assert v["episodes"] == len(these) and all(sum(u.side == s.side for u in s.final.units) == n for s in these)
        assert v["win_rate"] == sum(s.winner == s.side for s in these) / len(these)
        assert v["win_rate_ci95"][0] <= v["win_rate"] <= v["win_rate_ci95"][1]
    assert sum(v["episodes"] for v in sizes.values()) == 20
    assert sum(v["win_rate"] * v["episodes"] for v in sizes.values()) == pytest.approx(summary["wins"])


def test_workers_give_the_same_results():
    """Episodes depend only on their seeds: shared out over forked processes they come out the same."""
    from agents.policies import load_policy

    rs = get_ruleset("saga")
    one, stats1 = evaluate(load_policy("zoo:saga", rs), load_policy("heuristic", rs, seed=1), rs, episodes=8, seed=5,
                           source=_small_source(rs), narrate_first=True)
    two, stats2 = evaluate(load_policy("zoo:saga", rs), load_policy("heuristic", rs, seed=1), rs, episodes=8, seed=5,
                           source=_small_source(rs), narrate_first=True, workers=2)
    assert two == one
    assert [(s.side, s.winner, s.damage_dealt, s.actions) for s in stats2] == \
        [(s.side, s.winner, s.damage_dealt, s.actions) for s in stats1]
    assert stats2[0].narration == stats1[0].narration and stats2[0].final is not None


def test_metrics_are_sane_and_legal_policies_have_no_illegal_decisions():
    rs = get_ruleset("saga")
    summary, stats = evaluate(RandomPolicy(1), RandomPolicy(2), rs, episodes=4, seed=0, source=_small_source(rs))
    t = summary["tactics"]
    assert t["illegal_rate"] == 0.0
    rates = [v for k, v in t.items() if k.endswith("_rate") and k not in ("cover_rate", "illegal_rate")]
    assert sum(rates) == pytest.approx(1.0)  # every decision is one action of the catalogue
    assert 0.0 <= t["cover_rate"] <= 1.0 and 0.0 <= t["focus_fire"] <= 1.0
    assert summary["damage_dealt"] == pytest.approx(sum(s.damage_dealt for s in stats) / 4)
    assert 1 <= summary["mean_rounds"] <= 8


class _Stubborn(Policy):
    """Always asks for something the rules never allow."""

    def choose(self, battle):
        return Decision("no_such_action")


def test_illegal_decisions_are_counted_not_played():
    rs = get_ruleset("saga")
    summary, _ = evaluate(_Stubborn(), RandomPolicy(2), rs, episodes=2, seed=0, source=_small_source(rs))
    assert summary["tactics"]["illegal_rate"] == 1.0
    assert summary["tactics"]["end_turn_rate"] == 1.0


def test_eval_command_json_and_table():
    import json

    from typer.testing import CliRunner

    from agents.cli import app
    out = CliRunner().invoke(app, ["eval", "random", "--ruleset", "saga", "--vs", "random", "--episodes", "4",
                                   "--json"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.stdout)
    first = data["results"][0]
    assert first["episodes"] == 4 and first["opponent"] == "random"
    lo, hi = first["win_rate_ci95"]
    assert 0 <= lo <= first["win_rate"] <= hi <= 1
    assert first["mean_rounds"] > 0
    par = CliRunner().invoke(app, ["eval", "random", "--ruleset", "saga", "--vs", "random", "--episodes", "4",
                                   "--json", "--workers", "2"])
    assert par.exit_code == 0 and json.loads(par.stdout) == data
    table = CliRunner().invoke(app, ["eval", "random", "--ruleset", "saga", "--vs", "random", "--episodes", "2"])
    assert table.exit_code == 0 and "win" in table.output and "20 rounds" in table.output
    sized = ["eval", "random", "--ruleset", "saga", "--vs", "random", "--episodes", "16"]
    by_size = json.loads(CliRunner().invoke(app, sized + ["--json"]).stdout)["results"][0]["by_size"]
    line = next(x for x in CliRunner().invoke(app, sized).output.splitlines() if "win rate by size" in x)
    assert len(by_size) > 1 and re.findall(r"\b(\dv\d) ", line) == list(by_size)
    bad = CliRunner().invoke(app, ["eval", "nowhere.zip", "--ruleset", "saga", "--episodes", "2"])
    assert bad.exit_code == 2 and "nowhere.zip" in bad.output


def test_eval_json_has_one_shape_whatever_the_number_of_opponents():
    """`--json` is {format, policy, ruleset, seed, episodes, round_limit, encounters, config, results: [{opponent,
    ...}]}
    with one or several --vs; each result is the summary of that opponent alone."""
    import json

    from typer.testing import CliRunner

    from agents.cli import app
    base = ["eval", "random", "--ruleset", "saga", "--episodes", "4", "--json"]
    one = json.loads(CliRunner().invoke(app, base + ["--vs", "heuristic"]).stdout)
    two = json.loads(CliRunner().invoke(app, base + ["--vs", "heuristic", "--vs", "random"]).stdout)
    keys = ["format", "policy", "ruleset", "seed", "episodes", "round_limit", "encounters", "config", "results"]
    assert list(one) == keys and list(two) == keys
    assert one["format"] == two["format"] == 1 and one["round_limit"] == 20 and one["encounters"] is None
    assert [r["opponent"] for r in one["results"]] == ["heuristic"]
    assert [r["opponent"] for r in two["results"]] == ["heuristic", "random"]
    assert two["results"][0] == one["results"][0]  # the same seeds: the same figures against the heuristic
    assert set(two["results"][1]) == set(one["results"][0])
    files = json.loads(CliRunner().invoke(app, base + ["--vs", "random", "--encounter",
                                                       "configs/encounters/saga/cantina_ambush.yaml"]).stdout)
    assert files["encounters"] == ["configs/encounters/saga/cantina_ambush.yaml"]


def test_control_plays_the_heuristic_in_the_policys_place_on_the_same_episodes():
    """`--control`: per opponent, the heuristic's own figures on the very episodes the policy played (the same
    encounters, seeds and seats); without it each result's "control" is null."""
    import json

    from typer.testing import CliRunner

    from agents.cli import app
    base = ["eval", "random", "--ruleset", "saga", "--vs", "random", "--vs", "heuristic", "--episodes", "6", "--seed",
            "3", "--json"]
    plain = json.loads(CliRunner().invoke(app, base).stdout)
    got = json.loads(CliRunner().invoke(app, base + ["--control"]).stdout)
    assert [r["control"] for r in plain["results"]] == [None, None]
    for r, p in zip(got["results"], plain["results"]):
        assert {k: v for k, v in r.items() if k != "control"} == {k: v for k, v in p.items() if k != "control"}
    for r in got["results"]:
        alone = json.loads(CliRunner().invoke(app, ["eval", "heuristic", "--ruleset", "saga", "--vs", r["opponent"],
                                                    "--episodes", "6", "--seed", "3", "--json"]).stdout)["results"][0]
        assert r["control"]["win_rate"] == alone["win_rate"] and r["control"]["by_size"] == alone["by_size"]
    assert got["results"][0]["control"]["win_rate"] > got["results"][0]["win_rate"]  # the heuristic beats random
    table = CliRunner().invoke(app, ["eval", "random", "--ruleset", "saga", "--vs", "random", "--episodes", "2",
                                     "--control"], env={"COLUMNS": "200"})
    assert table.exit_code == 0 and "control (heuristic)" in table.output


def test_the_readme_shows_the_eval_json_shape():
    """README's eval paragraph holds a (trimmed) `--json` output: valid JSON with every top-level key of the real
    output, in order, and results whose keys are the real results' keys."""
    import json

    from typer.testing import CliRunner

    from agents.cli import app
    text = Path("README.md").read_text()
    start = text.index("```json\n", text.index("`--json` prints one object of this shape")) + len("```json\n")
    shown = json.loads(text[start:text.index("```", start)])
    real = json.loads(CliRunner().invoke(app, ["eval", "random", "--ruleset", "saga", "--episodes", "2",
                                               "--json"]).stdout)
    assert list(shown) == list(real) and shown["format"] == real["format"]
    assert [r["opponent"] for r in shown["results"]] == [r["opponent"] for r in real["results"]]
    for got in shown["results"]:
        assert set(got) <= set(real["results"][0]) and list(got)[0] == "opponent"
        assert set(got["by_seat"]) == set(real["results"][0]["by_seat"])


def test_one_round_limit_for_every_player():
    """The round limit comes from the evaluation, not from who plays: a model trained at 8 rounds and a rule policy
    meet their encounters at the same limit (20 by default, `--round-limit` otherwise; in `tactician eval`, an
    encounter file's own unless `--round-limit` is given)."""
    import json

    from typer.testing import CliRunner

    from agents.cli import app
    from agents.evaluate import source_for

    class Trained(RandomPolicy):
        meta = {"train_env": {"encounters": [], "generator": {"width": 10, "height": 10, "sizes": [1, 2]},
                              "round_limit": 8}}

    rs = get_ruleset("saga")
    canyon = [Path("configs/encounters/saga/canyon_beast.yaml")]  # its own round_limit is 15
    for pol in (Trained(0), RandomPolicy(0)):
        assert source_for(pol, rs)(3).round_limit == 20
        assert source_for(pol, rs, round_limit=5)(3).round_limit == 5
        assert source_for(pol, rs, canyon)(3).round_limit == 20
    assert source_for(Trained(0), rs)(3).grid.width == 10  # the model's training encounters, still
    out = CliRunner().invoke(app, ["eval", "random", "--ruleset", "saga", "--vs", "random", "--episodes", "6",
                                   "--round-limit", "2", "--json"])
    data = json.loads(out.stdout)
    assert data["round_limit"] == 2 and 0 < data["results"][0]["mean_rounds"] <= 2
    table = CliRunner().invoke(app, ["eval", "random", "--ruleset", "saga", "--vs", "random", "--episodes", "2",
                                     "--round-limit", "3"])
    assert "3 rounds" in table.output
    # encounter files a GM wrote keep their own round limit unless --round-limit says otherwise (as a card's held-out
    # figures are played): canyon_beast's 15
    out = CliRunner().invoke(app, ["eval", "random", "--ruleset", "saga", "--vs", "random", "--episodes", "4",
                                   "--encounter", str(canyon[0]), "--json"])
    data = json.loads(out.stdout)
    assert data["results"][0]["agreement"] is None  # without --agreement
    own, _ = evaluate(RandomPolicy(0), RandomPolicy(1), rs, 4, 0, encounter_source(rs, canyon, None, None))
    assert data["round_limit"] is None and data["results"][0]["mean_rounds"] == own["mean_rounds"]
    assert encounter_source(rs, canyon, None, None)(0).round_limit == 15


def test_eval_takes_the_ruleset_from_a_model_and_asks_for_it_otherwise(tmp_path):
    from typer.testing import CliRunner

    from agents.cli import app
    from agents.commands.eval import model_ruleset
    from engine.rulesets import available

    assert model_ruleset("zoo:saga") == "saga" and model_ruleset("heuristic") is None
    assert model_ruleset(str(tmp_path / "none.zip")) is None
    out = CliRunner().invoke(app, ["eval", "random", "--vs", "random", "--episodes", "2"])
    assert out.exit_code == 2 and "give --ruleset" in out.output
    assert all(rid in out.output for rid in available())


def test_eval_command_reports_a_dead_worker_without_a_traceback(monkeypatch):
    """An evaluation worker killed mid-episode: `tactician eval --workers 2` says so in one line and exits 1."""
    import os
    import signal

    from typer.testing import CliRunner

    from agents.cli import app
    from engine.core.battle import Battle

    parent, real = os.getpid(), Battle.step

    def step(self, decision):  # the forked workers inherit this
        if os.getpid() != parent:
            os.kill(os.getpid(), signal.SIGKILL)
        return real(self, decision)

    monkeypatch.setattr(Battle, "step", step)
    out = CliRunner().invoke(app, ["eval", "random", "--ruleset", "saga", "--vs", "random", "--episodes", "4",
                                   "--workers", "2"])
    assert out.exit_code == 1 and "died" in out.output and "exit code" in out.output
    assert "Traceback" not in out.output


def test_eval_config_plays_the_encounters_a_training_config_trains_on(tmp_path):
    """`--config`: the config's generator (here 1v1 only, where the default random encounters are 2-4 a side) and
    its ruleset; a config that does not validate, or of another ruleset, is an error naming it."""
    import json

    from typer.testing import CliRunner

    from agents.cli import app
    cfg = tmp_path / "duel.yaml"
    cfg.write_text("ruleset: starfinder\nenv: {generator: {width: 8, height: 8, sizes: [1, 1]}, max_per_side: 1, "
                   "map_size: [8, 8]}\n")
    base = ["eval", "heuristic", "--vs", "random", "--episodes", "6", "--json"]
    out = CliRunner().invoke(app, base + ["--config", str(cfg)])
    assert out.exit_code == 0, out.output
    data = json.loads(out.stdout)
    assert data["ruleset"] == "starfinder" and data["config"] == str(cfg)
    assert list(data["results"][0]["by_size"]) == ["1v1"]
    plain = json.loads(CliRunner().invoke(app, base + ["--ruleset", "starfinder"]).stdout)
    assert "1v1" not in plain["results"][0]["by_size"] and plain["config"] is None
    other = CliRunner().invoke(app, base + ["--config", str(cfg), "--ruleset", "saga"])
    assert other.exit_code == 2 and "trains ruleset 'starfinder'" in other.output
    cfg.write_text("ruleset: starfinder\nenv: {generator: {colour: red}}\n")
    bad = CliRunner().invoke(app, base + ["--config", str(cfg)])
    assert bad.exit_code == 2 and "env.generator.colour" in bad.output and "Traceback" not in bad.output


def test_draws_are_told_apart_by_why_they_are_draws():
    """A draw at the round limit leaves both sides standing; in Rise's simultaneous phases the last two creatures can
    also down each other (no side left standing). Each draw says which, and the summary counts both."""
    rs = get_ruleset("rise")
    source = encounter_source(rs, generator={"width": 8, "height": 8, "sizes": (1, 1), "wounded": 1.0}, round_limit=3)
    summary, stats = evaluate(HeuristicPolicy(1), HeuristicPolicy(2), rs, episodes=60, seed=0, source=source)
    kinds = {"round_limit": 0, "none_standing": 0}
    for s in stats:
        if s.winner != "draw":
            assert s.draw_kind == ""
            continue
        standing = {u.side for u in s.final.units if u.active}
        assert s.draw_kind == ("round_limit" if len(standing) == 2 else "none_standing")
        kinds[s.draw_kind] += 1
    assert summary["draws_by_kind"] == kinds and sum(kinds.values()) == summary["draws"]
    assert kinds["round_limit"] > 0 and kinds["none_standing"] > 0, kinds
