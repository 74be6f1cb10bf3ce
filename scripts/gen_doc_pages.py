"""Pages built from the code when the site is built (run by the mkdocs-gen-files plugin).

* ``games/<family>.md``: the game module's docstring (its doc page: rules, options,
  observation and action tables, version history), a table of its registered ids with their
  spaces, and a GIF of a game of the family's main id (``main_id``) played by two agents
  (``mancala_envs.render``);
* ``reference/cli.md``: ``mancala --help`` and every subcommand's help;
* ``reference/api/*.md``: mkdocstrings pages of the public modules (read from the installed
  layout that ``scripts/docs_hooks.py`` mirrors).

The docstrings are reStructuredText; docutils turns them into HTML, and any docutils
warning stops the build (``halt_level``), so ``mkdocs build --strict`` also checks them.
"""

from __future__ import annotations

import contextlib
import io
import tempfile
from pathlib import Path

import mkdocs_gen_files
from docutils.core import publish_parts

from mancala_envs import cli, make_game
from mancala_envs.agents import make_agent
from mancala_envs.evaluation import play_game
from mancala_envs.registry import FAMILY_MODULES, get_entry
from mancala_envs.render import frames_of_game, save_gif

GIF_PLIES = 40  # frames per game picture: the opening of a game, enough to see the rules at work
GIF_AGENTS = ("greedy", "random")  # no search to compile: the build stays quick

API_MODULES = {
    "envs": ["mancala_envs", "mancala_envs.env", "mancala_envs.gym", "mancala_envs.vector", "mancala_envs.registry"],
    "games": ["mancala_envs.core.game", "mancala_envs.core.options", "mancala_envs.records"],
    "agents": ["mancala_envs.agents.specs", "mancala_envs.agents.search", "mancala_envs.agents.mcts",
               "mancala_envs.agents.solver", "mancala_envs.agents.learned.learned_eval"],
    "evaluation": ["mancala_envs.evaluation.arena", "mancala_envs.evaluation.openings",
                   "mancala_envs.evaluation.paired_results", "mancala_envs.evaluation.tournament",
                   "mancala_envs.evaluation.analysis"],
    "training": ["mancala_envs.training.config", "mancala_envs.training.algorithms", "mancala_envs.training.train",
                 "mancala_envs.training.search_bootstrap", "mancala_envs.training.ppo",
                 "mancala_envs.training.run_folder", "mancala_envs.training.evaluation"],
}


def rst_to_html(text: str) -> str:
    """A docstring (reStructuredText) as HTML; a docutils warning raises."""
    settings = {"report_level": 2, "halt_level": 2, "initial_header_level": 2, "doctitle_xform": False,
                "warning_stream": io.StringIO()}
    return publish_parts(text, writer_name="html5", settings_overrides=settings)["body"]


def family_name(module) -> str:
    return module.__name__.rpartition(".")[2]


def family_ids(module) -> list[str]:
    """The family's registered ids in the order its ``VARIANTS`` lists them."""
    return [variant.env_id for variant in module.VARIANTS]


def main_id(module) -> str:
    """The id that stands for the family (the first of its ``VARIANTS``: ``kalah-v0`` for the Kalah page)."""
    return module.VARIANTS[0].env_id


def game_gif(env_id: str) -> bytes:
    """The first ``GIF_PLIES`` plies of a seeded game between ``GIF_AGENTS``, as GIF bytes."""
    game = make_game(env_id)
    agents = tuple(make_agent(spec, seed=k) for k, spec in enumerate(GIF_AGENTS))
    actions = play_game(game, agents, seed=1).actions
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "game.gif"
        save_gif(frames_of_game(game, actions[:GIF_PLIES], seed=1), path, fps=2)
        return path.read_bytes()


def game_page(module) -> str:
    family = family_name(module)
    ids = family_ids(module)
    shown = main_id(module)
    title = module.__doc__.strip().splitlines()[0].rstrip(".")
    rows = []
    for env_id in ids:
        game = make_game(env_id)
        rows.append(f"| `{env_id}` | {get_entry(env_id).description} | {game.observation_size} | "
                    f"{game.num_actions} |")
    with mkdocs_gen_files.open(f"games/{family}.gif", "wb") as handle:
        handle.write(game_gif(shown))
    return "\n".join([
        f"# {title}", "",
        f"![A game of {shown}: {GIF_AGENTS[0]} against {GIF_AGENTS[1]}]({family}.gif)", "",
        f"*The first {GIF_PLIES} plies of `{shown}`, {GIF_AGENTS[0]} against {GIF_AGENTS[1]}; the last move "
        "is ringed in orange.*", "",
        "| id | description | observation size | actions |", "|---|---|---|---|", *rows, "",
        f"This page is the docstring of `{module.__name__}` "
        f"(`python -c \"import {module.__name__} as m; help(m)\"`).", "",
        rst_to_html(module.__doc__),
    ])


def cli_page() -> str:
    parser = cli.build_parser()
    sections = ["# Command line", "", "The `mancala` command; each subcommand's `--help` follows.", "",
                "```text", parser.format_help().rstrip(), "```"]
    for action in parser._subparsers._group_actions:  # argparse keeps its subparsers here
        for name, sub in action.choices.items():
            sections += ["", f"## mancala {name}", "", "```text", sub.format_help().rstrip(), "```"]
    return "\n".join(sections) + "\n"


def main() -> None:
    for module in FAMILY_MODULES:
        family = family_name(module)
        with mkdocs_gen_files.open(f"games/{family}.md", "w") as handle:
            handle.write(game_page(module))
    with contextlib.redirect_stdout(io.StringIO()), mkdocs_gen_files.open("reference/cli.md", "w") as handle:
        handle.write(cli_page())
    for group, modules in API_MODULES.items():
        with mkdocs_gen_files.open(f"reference/api/{group}.md", "w") as handle:
            handle.write(f"# API: {group}\n\n" + "\n".join(f"::: {name}\n" for name in modules))


main()
