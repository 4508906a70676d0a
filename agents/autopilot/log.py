"""The battle as Markdown: map, initiative, every round's narration, GM corrections and the result."""
from __future__ import annotations

from pathlib import Path


class BattleLog:
    """Lines of a Markdown battle report; `truncate` lets `undo` take lines back."""

    def __init__(self, title: str):
        self.lines: list[str] = [f"# {title}", ""]

    def __len__(self) -> int:
        return len(self.lines)

    def truncate(self, n: int) -> None:
        del self.lines[n:]

    def heading(self, text: str, level: int = 2) -> None:
        self.lines += ["", "#" * level + " " + text, ""]

    def item(self, text: str) -> None:
        self.lines.append(f"- {text}")

    def note(self, text: str) -> None:
        self.lines.append(f"- *{text}*")

    def block(self, text: str) -> None:
        self.lines += ["", "```", *text.splitlines(), "```", ""]

    def table(self, header: list[str], rows: list[list]) -> None:
        self.lines += ["", "| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        self.lines += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
        self.lines.append("")

    def text(self) -> str:
        return "\n".join(self.lines).rstrip() + "\n"

    def write(self, path: str | Path) -> Path:
        p = Path(path)
        if p.parent and not p.parent.exists():
            p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(self.text())
        return p
