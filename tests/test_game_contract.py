"""Every registered game family keeps the contract of ``mancala_envs.core.game.Game``.

* its class implements every required hook (no abstract method left) and declares the
  class attributes the env, the engine and the registry read;
* its params vector opens with ``PARAM_OPTIONS`` in the order of the family's ``P_<NAME>``
  index constants, encoded by ``Option.encode``;
* the option table of its doc page (the module docstring) names every declared option, in
  declaration order, with the declared default and allowed values.
"""

from __future__ import annotations

import inspect
import re
import sys

import numpy as np
import pytest

import mancala_envs
from mancala_envs.core.game import Game, Kernel, State
from mancala_envs.core.options import Option
from mancala_envs.registry import FAMILY_MODULES, get_entry

GAME_CLASSES = sorted({get_entry(env_id).game_class for env_id in mancala_envs.list_envs()}, key=lambda c: c.family)


def family_ids(cls):
    return cls.family


# -- the option table of a doc page -------------------------------------------------------------
ROW = re.compile(r"^``(?P<name>\w+)``\s+(?P<default>\S+)\s+(?P<allowed>.*)$")
BOUNDS = re.compile(r"(?P<low>[\d.]+(?:\*\*\d+)?) (?:to|or) (?P<high>[\d.]+(?:\*\*\d+)?)")


def option_rows(doc: str) -> list[tuple[str, str, str]]:
    """``(name, default, allowed)`` of each row of the "Options" table; the allowed text of a
    row wrapped onto further lines is joined."""
    section = doc.split("\nOptions\n-------\n", 1)[1]
    table = section.split("\n\n", 1)[0].splitlines()
    rows: list[list[str]] = []
    for line in table:
        if line.startswith("=") or line.startswith("option "):
            continue
        found = ROW.match(line)
        if found:
            rows.append([found["name"], found["default"], found["allowed"]])
        elif rows and line.startswith(" "):
            rows[-1][2] += " " + line.strip()
    return [tuple(row) for row in rows]


def number(text: str) -> float:
    base, _, power = text.partition("**")
    return float(base) ** (int(power) if power else 1)


def table_mismatches(options: tuple[Option, ...], doc: str) -> list[str]:
    """What the doc page's option table says differently from the declarations."""
    rows = option_rows(doc)
    declared = [o.name for o in options]
    written = [name for name, _, _ in rows]
    if written != declared:
        return [f"the table lists {written}, the declarations {declared}"]
    bad = []
    for option, (name, default, allowed) in zip(options, rows):
        written_default = eval(default, {})  # a literal: True, 6, 2.5, None, "owner"
        if written_default != option.default or type(written_default) is not type(option.default):
            bad.append(f"{name}: default {default} in the table, {option.default!r} declared")
        if bool(re.search(r"^None\b|\bor None\b", allowed)) != option.allow_none:
            bad.append(f"{name}: the table {'admits' if not option.allow_none else 'leaves out'} None")
        if option.kind == "bool" and not allowed.startswith("bool"):
            bad.append(f"{name}: a bool option, but the table allows {allowed!r}")
        elif option.kind == "choice":
            quoted = re.findall(r'"(\w+)"', allowed.split(":")[0])
            if tuple(quoted) != option.choices:
                bad.append(f"{name}: choices {quoted} in the table, {list(option.choices)} declared")
        elif option.kind in ("int", "float"):
            bounds = BOUNDS.search(allowed)
            if bounds is None:
                bad.append(f"{name}: the table gives no range ('LOW to HIGH') in {allowed!r}")
            elif (number(bounds["low"]), number(bounds["high"])) != (option.low, option.high):
                bad.append(f"{name}: range {bounds['low']} to {bounds['high']} in the table, "
                           f"{option.low:g} to {option.high:g} declared")
    return bad


@pytest.mark.parametrize("cls", GAME_CLASSES, ids=family_ids)
def test_the_doc_page_option_table_matches_the_declarations(cls):
    doc = sys.modules[cls.__module__].__doc__
    assert "\nOptions\n-------\n" in doc, f"{cls.family}: the doc page has no Options section"
    assert table_mismatches(cls.OPTIONS, doc) == []


def test_the_table_check_reports_each_kind_of_mismatch():
    options = (
        Option("pits", 6, "int", "holes", low=1, high=16),
        Option("capture", True, "bool", "captures"),
        Option("end", "a", "choice", "ending", choices=("a", "b")),
        Option("max_plies", 1000, "int", "cap", low=1, high=10**6, allow_none=True),
    )

    def page(*rows: str) -> str:
        return "Title\n\nOptions\n-------\n=====\noption default allowed\n=====\n" + "\n".join(rows) + "\n=====\n\nMore\n"

    good = ('``pits``  6  1 to 16 holes', '``capture``  True  bool', '``end``  "a"  "a", "b"',
            '``max_plies``  1000  1 to 10**6, or None (no cap)')
    assert table_mismatches(options, page(*good)) == []
    assert table_mismatches(options, page(*good[:3])) != []  # an option left out
    assert table_mismatches(options, page("``pits``  4  1 to 16", *good[1:])) == [
        "pits: default 4 in the table, 6 declared"]
    assert table_mismatches(options, page("``pits``  6  1 to 12", *good[1:])) == [
        "pits: range 1 to 12 in the table, 1 to 16 declared"]
    assert table_mismatches(options, page(*good[:2], '``end``  "a"  "a", "c"', good[3])) == [
        "end: choices ['a', 'c'] in the table, ['a', 'b'] declared"]
    assert table_mismatches(options, page(*good[:3], "``max_plies``  1000  1 to 10**6")) == [
        "max_plies: the table leaves out None"]
    assert table_mismatches(options, page(good[0], "``capture``  True  1 to 2", *good[2:])) == [
        "capture: a bool option, but the table allows '1 to 2'"]


# -- the class contract ---------------------------------------------------------------------------
@pytest.mark.parametrize("cls", GAME_CLASSES, ids=family_ids)
def test_every_registered_game_class_implements_the_contract(cls):
    assert issubclass(cls, Game)
    assert not inspect.isabstract(cls), f"{cls.__name__} leaves {sorted(cls.__abstractmethods__)} abstract"
    assert isinstance(cls.kernel, Kernel) and all(callable(f) for f in cls.kernel)
    assert isinstance(cls.family, str) and cls.family
    assert cls.OPTIONS and all(isinstance(o, Option) for o in cls.OPTIONS)
    assert "max_plies" in {o.name for o in cls.OPTIONS}
    assert len(cls.seat_names) == 2 and all(isinstance(s, str) for s in cls.seat_names)


@pytest.mark.parametrize("cls", GAME_CLASSES, ids=family_ids)
def test_the_params_vector_opens_with_the_declared_options_at_their_kernel_indices(cls):
    module = sys.modules[cls.__module__]
    declared = {o.name: o for o in cls.OPTIONS}
    assert set(cls.PARAM_OPTIONS) <= set(declared)
    for index, name in enumerate(cls.PARAM_OPTIONS):
        assert getattr(module, f"P_{name.upper()}") == index, f"{cls.family}: P_{name.upper()} is not {index}"
    game = cls()
    assert game.params.dtype == np.int64 and game.params.flags.c_contiguous
    assert game.params[: len(cls.PARAM_OPTIONS)].tolist() == [
        declared[name].encode(game.options[name]) for name in cls.PARAM_OPTIONS
    ]


@pytest.mark.parametrize(
    "option, value, encoded",
    [
        (Option("b", False, "bool", ""), True, 1),
        (Option("c", "x", "choice", "", choices=("x", "y", "z")), "z", 2),
        (Option("t", None, "int", "", low=1, high=9, allow_none=True), None, 0),
        (Option("t", None, "int", "", low=1, high=9, allow_none=True), 7, 7),
    ],
)
def test_option_encoding(option, value, encoded):
    assert option.encode(value) == encoded


def test_a_float_option_has_no_generic_encoding():
    with pytest.raises(TypeError, match="derive"):
        Option("komi", 2.5, "float", "", low=0, high=9).encode(2.5)


def test_a_family_that_leaves_a_required_hook_out_cannot_be_built():
    kalah = get_entry("kalah-v0").game_class

    class NoBoardView(kalah):
        board_view = Game.board_view  # the abstract declaration again

    assert inspect.isabstract(NoBoardView)
    with pytest.raises(TypeError, match="board_view"):
        NoBoardView()


def test_the_registry_registers_the_variants_each_family_module_declares():
    declared = [v.env_id for module in FAMILY_MODULES for v in module.VARIANTS]
    assert len(declared) == len(set(declared))
    assert sorted(declared) == mancala_envs.list_envs()
    for module in FAMILY_MODULES:
        for variant in module.VARIANTS:
            entry = get_entry(variant.env_id)
            assert entry.game_class is variant.game_class and entry.preset == dict(variant.preset)
            assert entry.description == variant.description


def test_the_optional_hooks_have_their_documented_defaults():
    kalah = mancala_envs.make_game("kalah-v0")
    before: State = kalah.new_state()
    after = before.clone()
    after.apply(before.legal_actions()[0])
    assert kalah.seat_names == ("player_0", "player_1")
    assert kalah.result_text(after) is None
    assert kalah.record_count(before, before.legal_actions()[0], after) is None
    assert kalah.text_record_format is None
    afrika = mancala_envs.make_game("afrika-v0")
    assert afrika.seat_names == ("North", "South") and afrika.text_record_format is not None
