"""`tactician COMMAND --help`: a command's docstring reads as paragraphs, not as the source's line breaks."""
from __future__ import annotations

from typer.testing import CliRunner

from agents.cli import app, reflowed


def test_a_docstring_paragraph_is_one_line_and_an_indented_block_stays_as_written():
    doc = """First line.

    A paragraph written over
    two lines.

        {"an": "example",
         "kept": true}
    """
    assert reflowed(doc) == 'First line.\n\nA paragraph written over two lines.\n\n    {"an": "example",\n     "kept": true}'


def test_every_command_shows_its_docstring_reflowed():
    for cmd in app.registered_commands:
        assert cmd.help == reflowed(cmd.callback.__doc__), cmd.name
    out = CliRunner().invoke(app, ["eval", "--help"], env={"COLUMNS": "200"})
    assert out.exit_code == 0
    # the source breaks this sentence after "trained"; the help wraps it at the terminal's width only
    assert "else those a model POLICY was trained on, else random ones" in out.output
