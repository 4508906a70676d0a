"""Action economies: the per-turn budget of a ruleset and how one kind of action may pay for another.

One model carries every ruleset here: a budget is a dict of named counters; a cost names a counter and
an amount; `trades` lists, per cost, which counters may pay it, cheapest first; a full-round cost needs
every counter of `full_round_needs` untouched and empties those counters (all of them when none are named);
counters outside it (the starship's 500-ft shift, a free object interaction) stay.

- Saga: {standard: 1, move: 1, swift: 1}; move may be paid by standard; swift by move or standard.
- 5e-style: {action: 1, bonus: 1, object: 1, feet: 30}; movement is an amount of the `feet` pool.
- Starship: {move: 2, attack: 1, shift: 1}; full-round needs move and attack untouched, keeps the shift.
"""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Economy:
    slots: dict[str, int]
    trades: dict[str, tuple[str, ...]] = field(default_factory=dict)
    full_round: str = "full_round"
    full_round_needs: tuple[str, ...] = ()

    def new_budget(self, **override: int) -> dict[str, int]:
        b = dict(self.slots)
        if override:
            b.update(override)
        return b

    def payers(self, cost: str) -> tuple[str, ...]:
        return self.trades.get(cost, (cost,))

    def can_pay(self, budget: dict[str, int], cost: str, amount: int = 1, times: int = 1) -> bool:
        """Whether `times` payments of `amount` of `cost` fit in the budget."""
        if cost == "free":
            return True
        if cost == self.full_round:
            return all(budget.get(k, 0) >= self.slots[k] for k in self.full_round_needs)
        if times == 1:  # one payment: any payer that has it (no copy of the budget to spend from)
            for p in self.trades.get(cost, (cost,)):
                if budget.get(p, 0) >= amount:
                    return True
            return False
        left = dict(budget)
        for _ in range(times):
            for p in self.payers(cost):
                if left.get(p, 0) >= amount:
                    left[p] -= amount
                    break
            else:
                return False
        return True

    def pay(self, budget: dict[str, int], cost: str, amount: int = 1, times: int = 1) -> list[str]:
        """Spend from the budget in place; returns the counters that paid. Call `can_pay` first."""
        if cost == "free":
            return []
        if cost == self.full_round:
            for k in (self.full_round_needs or tuple(budget)):
                budget[k] = 0
            return [self.full_round]
        if times == 1:
            for p in self.trades.get(cost, (cost,)):
                if budget.get(p, 0) >= amount:
                    budget[p] -= amount
                    return [p]
            raise ValueError(f"cannot pay {cost}")
        paid = []
        for _ in range(times):
            for p in self.payers(cost):
                if budget.get(p, 0) >= amount:
                    budget[p] -= amount
                    paid.append(p)
                    break
            else:
                raise ValueError(f"cannot pay {cost}")
        return paid

    @staticmethod
    def describe(budget: dict[str, int]) -> str:
        """'standard, move, swift' — what is left, for a GM."""
        parts = []
        for k, v in budget.items():
            if v > 0:
                parts.append(k.replace("_", " ") if v == 1 else f"{v} {k.replace('_', ' ')}")
        return ", ".join(parts) or "nothing"
