"""A visitor's lesson file cannot stall the class (issue 45, item 1): its structure is bounded
before any parser sees it, and an upload is parsed in a child process with CPU and memory limits.

The attack that was found: one dotted key `a.a.a...` of 32,000 parts in a 64 KB file, 12 s of CPU
and 3.9 GB in tomllib (quadratic in a key's parts) inside a run slot. These tests assert that the
parser is never reached for such files (so they fail on the old code, which parsed first and
counted depth after), whatever shape the excess takes."""

import tomllib

import pytest

from lessons import schema, toml_bounds


def _dotted(parts: int, quoted: bool = False, spaced: bool = False) -> str:
    part = '"a"' if quoted else "a"
    return (" . " if spaced else ".").join([part] * parts) + " = 1\n"


HOSTILE = {
    "one dotted key of 31,000 parts": _dotted(31_000),
    "quoted parts": _dotted(9_000, quoted=True),
    "parts with spaces around the dots": _dotted(9_000, spaced=True),
    "a dotted table header": "[" + ".".join(["t"] * 20_000) + "]\n",
    "a dotted array-of-tables header": "[[" + ".".join(["t"] * 20_000) + "]]\n",
    "a dotted key inside an inline table": "x = {" + ".".join(["b"] * 20_000) + " = 1}\n",
    "nested arrays": "x = " + "[" * 5_000 + "]" * 5_000 + "\n",
    "nested inline tables": "x = " + "{y = " * 3_000 + "1" + "}" * 3_000 + "\n",
    "many keys": "".join(f"k{i}=1\n" for i in range(4_000)),
    "many keys in one inline table": "x = {" + ",".join(f"k{i}=1" for i in range(4_000)) + "}\n",
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_a_hostile_structure_is_refused_before_the_parser_runs(name, monkeypatch):
    text = HOSTILE[name]
    assert len(text.encode()) <= schema.MAX_BYTES, "the attack must fit the byte limit to test structure"

    def parser_reached(*a, **k):
        raise AssertionError("the TOML parser ran on an unbounded file")

    monkeypatch.setattr(tomllib, "loads", parser_reached)
    for untrusted in (False, True):
        with pytest.raises(schema.LessonError) as e:
            schema.validate(text, untrusted=untrusted)
        assert e.value.code in ("too_deep", "too_complex")


@pytest.mark.parametrize(
    "text",
    [
        'title = "a.b.c.d.e.f.g.h.i.j.k.l.m.n.o.p.q.r"\n',  # dots inside a string are no key's
        "title = 'a.b.c.d.e.f.g.h.i.j.k.l.m.n.o.p.q.r'\n",
        'ask = """\n' + "a.b.c.d.e.f.g.h.i.j.k.l.m.n.o.p.q.r [[[[[[[[[[[[ {{{{{{{{{{{{ = = =\n" * 3 + '"""\n',
        "ask = '''\n" + "a.b.c.d.e.f.g.h.i.j.k.l.m.n.o.p.q.r\n" * 3 + "'''\n",
        "# a.b.c.d.e.f.g.h.i.j.k.l.m.n.o.p.q.r [[[[[[[[[[[[[[\n",
        'x = "escaped \\" quote a.b.c.d.e.f.g.h.i.j.k.l.m.n.o.p.q"\n',
        'x = """ends with two quotes"""""\n',
    ],
)
def test_strings_and_comments_do_not_count_as_structure(text):
    toml_bounds.check(text)
    tomllib.loads(text)  # and they are real TOML


def test_every_built_in_lesson_passes_the_bounds_and_parses_the_same_in_the_child():
    paths = sorted(lessons_dir().glob("*.toml"))
    assert paths, "no built-in lesson found"
    for p in paths:
        text = p.read_text()
        toml_bounds.check(text)
        assert toml_bounds.parse(text) == tomllib.loads(text), p.name


def test_an_upload_is_parsed_in_a_child_that_its_limits_stop(monkeypatch):
    text = (lessons_dir() / "attention.toml").read_text()
    assert schema.validate(text, untrusted=True).id == schema.validate(text).id
    # a child that cannot have the memory it needs is stopped, and the visitor told so
    monkeypatch.setattr(toml_bounds, "CHILD_MEMORY", 4 * 2**20)
    with pytest.raises(schema.LessonError) as e:
        schema.validate(text + "\n# a text not read before: a lesson read once is not parsed again\n", untrusted=True)
    assert e.value.code == "too_complex"


def test_a_lesson_read_again_is_a_copy_of_its_own_and_follows_the_models_offered(monkeypatch):
    """validate keeps the lessons it read by their text (a page run reads the same files several
    times): a hit is equal to a fresh reading, changing it changes no later reading, and a step
    naming a model no longer offered is refused again."""
    text = (lessons_dir() / "attention.toml").read_text()
    first = schema.validate(text)
    again = schema.validate(text)
    assert again == first and again is not first
    again.steps[0]["model"] = "changed"
    again.title["en"] = "changed"
    third = schema.validate(text)
    assert third.steps[0]["model"] == first.steps[0]["model"] != "changed"
    assert third.title["en"] == first.title["en"]
    used, known = first.steps[0]["model"], schema.known_models()
    monkeypatch.setattr(schema, "known_models", lambda: tuple(m for m in known if m != used))
    with pytest.raises(schema.LessonError) as e:
        schema.validate(text)
    assert e.value.code == "unknown_model"
    bad = text.replace("[[step]]", "[[step]]\nnot_a_key = 1", 1)
    for _ in range(2):  # a broken lesson is not kept: it says why each time
        with pytest.raises(schema.LessonError):
            schema.validate(bad)
    assert all(key[0] != bad for key in schema._VALID)


def test_a_date_in_an_upload_is_refused_as_no_lesson_value():
    with pytest.raises(schema.LessonError) as e:
        schema.validate("id = 1979-05-27\n", untrusted=True)
    assert e.value.code == "not_toml"


def test_too_complex_is_worded_in_both_languages():
    import tomllib as t

    from ui.i18n import LANGS

    strings = t.loads((lessons_dir().parents[1] / "ui" / "strings" / "editor.toml").read_text())
    assert set(LANGS) <= set(strings["lesson_error_too_complex"])


def lessons_dir():
    import lessons.files

    return lessons.files.BUILTIN_DIR
