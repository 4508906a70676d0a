"""Movement searches that start past the mover's own square: a withdrawal is one move whose first square is
chosen by the rules, so the search goes on from that square with the movement already spent and the diagonal
count already made (every second diagonal of the whole move costs 2), never afresh.

A search state is `2 * square + parity` (parity: an odd number of diagonals so far under the 'alternating'
metric), as in `engine/core/grid.py`; a seed is (state, cost already spent). `_legal.c`'s `search` mirrors
`seeded_reach` for the legal withdrawals.
"""
from __future__ import annotations

import heapq


def seeds_after(g, start: tuple[int, int], firsts) -> list[tuple[int, int]]:
    """The seeds of a move from start whose first step enters one of `firsts` ((square index, cost) pairs): that
    square's state after the step (parity 1 after a diagonal step under the alternating metric) and its cost."""
    alternating = g.metric == "alternating"
    w = g.width
    out = []
    for i, c in firsts:
        diagonal = alternating and i % w != start[0] and i // w != start[1]
        out.append((2 * i + diagonal, c))
    return out


def seeded_reach(g, seeds, budget: int, blocked) -> dict[int, int]:
    """Squares (flat index -> least cost) a move reaches within `budget` from its seeds, entering none of
    `blocked`, in the order the search first reaches them (the seeds' squares first, in seed order). The
    bucket search of `Grid._search_py`: each cost's states are expanded in increasing state order."""
    trans = g._geometry.transitions(g, g._door_key())
    big = 1 << 30
    seen = [big] * len(trans)
    for j in blocked:  # never entered: as if already reached at no cost
        seen[2 * j] = seen[2 * j + 1] = -1
    cost_of: dict[int, int] = {}
    buckets: list[list[int]] = [[] for _ in range(max(budget, 0) + 1)]
    for state, c in seeds:
        if c > budget or seen[state] <= c:
            continue
        seen[state] = c
        j = state >> 1
        if c < cost_of.get(j, big):
            cost_of[j] = c
        buckets[c].append(state)
    for cost in range(budget):  # states at the full budget cannot move on: their bucket needs no visit
        bucket = buckets[cost]
        if not bucket:
            continue
        bucket.sort()
        for state in bucket:
            if seen[state] < cost:
                continue
            for nxt, add, j in trans[state]:
                c = cost + add
                if c > budget or seen[nxt] <= c:
                    continue
                seen[nxt] = c
                if c < cost_of.get(j, big):
                    cost_of[j] = c
                buckets[c].append(nxt)
    return cost_of


def seeded_path(g, seeds, goal: int, budget: int, blocked, danger) -> list[tuple[int, int]] | None:
    """The walk from the seeds to square `goal` within `budget` that leaves the fewest dangerous squares
    (`danger[i]` truthy: leaving i provokes), then costs least: its squares, the seed's first, or None. The search
    of `Grid._path_py`, seeded (a seed itself provokes nothing: the step into it is the mover's business)."""
    trans = g._geometry.transitions(g, g._door_key())
    blocked = set(blocked)
    heap = [(0, c, state >> 1, state & 1, (state >> 1,)) for state, c in seeds if c <= budget]
    heapq.heapify(heap)
    done: list[list[tuple[int, int]] | None] = [None] * len(trans)
    push, pop = heapq.heappush, heapq.heappop
    while heap:
        prov, cost, i, parity, trail = pop(heap)
        if i == goal:
            return [g.xy(k) for k in trail]
        key = 2 * i + parity
        olds = done[key]
        if olds is not None:
            if any(op <= prov and oc <= cost for op, oc in olds):
                continue  # dominated by a walk already taken off here: it can lead to nothing smaller
            olds.append((prov, cost))
        else:
            done[key] = [(prov, cost)]
        leave = prov + 1 if danger.get(i) else prov
        for nk, add, j in trans[key]:
            c = cost + add
            if c <= budget and j not in blocked:
                push(heap, (leave, c, j, nk & 1, trail + (j,)))
    return None
