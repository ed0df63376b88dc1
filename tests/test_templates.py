"""Key templates: render (row -> key), parse (key -> values), placeholders, format specs."""

from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from blue_nb.errors import TemplateError
from blue_nb.spec import KeyTemplate


@pytest.mark.parametrize("text, row, key", [
    ("META", {}, "META"),                                                       # constant
    ("{dialogue_id}", {"dialogue_id": "nvidia-dec"}, "nvidia-dec"),             # bare placeholder
    ("EXPERT#{expert}", {"expert": "muffin"}, "EXPERT#muffin"),                 # TYPE#subkey
    ("PERSP#{round}#{expert}#{seq}", {"round": "0", "expert": "muffin", "seq": "1"}, "PERSP#0#muffin#1"),
    ("PERSP#{round:03d}#{expert}", {"round": "7", "expert": "m"}, "PERSP#007#m"),   # CSV strings take int formats
    ("PERSP#{round:03d}", {"round": 12}, "PERSP#012"),                          # ints too
    ("S#{score:08.3f}", {"score": "87.125"}, "S#0087.125"),                     # float formats use Decimal
    ("S#{score:08.3f}", {"score": Decimal("1.5")}, "S#0001.500"),
    ("TEVENT#{tension_id}#{ts}", {"tension_id": "T01", "ts": 1706900000}, "TEVENT#T01#1706900000"),
    ("{a}{b}", {"a": "x", "b": "y"}, "xy"),                                     # adjacent placeholders
    ("DOC#{t}#{n}", {"t": "rfc", "n": "0051"}, "DOC#rfc#0051"),                 # leading zeros kept
    ("U#{name}", {"name": "東京-launch"}, "U#東京-launch"),                        # any Unicode
    ("B#{{lit}}#{x}", {"x": "1"}, "B#{lit}#1"),                                 # escaped braces
    ("F#{flag}", {"flag": True}, "F#true"),
])
def test_render(text, row, key):
    assert KeyTemplate(text).render(row) == key


@pytest.mark.parametrize("text, key, values", [
    ("META", "META", {}),
    ("META", "METAX", None),                                                    # constants match whole keys
    ("EXPERT#{expert}", "EXPERT#muffin", {"expert": "muffin"}),
    ("EXPERT#{expert}", "EXPERTISE#muffin", None),                              # other type
    ("PERSP#{round}#{expert}#{seq}", "PERSP#10#ann#3", {"round": "10", "expert": "ann", "seq": "3"}),
    ("PERSP#{round}#{expert}#{seq}", "PERSP#10#ann", None),                     # too few parts
    ("TEVENT#{tension_id}#{ts}", "TEVENT#T10#1706900000", {"tension_id": "T10", "ts": "1706900000"}),
    ("PERSP#{round:03d}", "PERSP#007", {"round": "007"}),
    ("{a}", "", {"a": ""}),
])
def test_parse(text, key, values):
    assert KeyTemplate(text).parse(key) == values


def test_split_gives_where_each_value_starts_and_parse_a_dict_of_its_own():
    t = KeyTemplate("PERSP#{round}#{expert}_{seq}#{round}")
    values, starts = t.split("PERSP#10#ann#x_3#10")
    assert values == {"round": "10", "expert": "ann#x", "seq": "3"}
    assert starts == {"round": 6, "expert": 9, "seq": 15}                   # the first occurrence of round
    assert t.open_values == ("expert",)                                      # followed by "_", not by "#"
    assert t.split("PERSP#10#ann#x_3#10") == (values, starts) and t.split("PERSP#1#a_3#2") is None
    mine = t.parse("PERSP#10#ann#x_3#10")
    mine["round"] = "changed"                                                # the caller's own dict
    assert t.parse("PERSP#10#ann#x_3#10")["round"] == "10" and values["round"] == "10"


@pytest.mark.parametrize("text, placeholders, prefix, type_prefix", [
    ("META", (), "META", "META"),
    ("{dialogue_id}", ("dialogue_id",), "", ""),
    ("EXPERT#{expert}", ("expert",), "EXPERT#", "EXPERT"),
    ("PERSP#{round:03d}#{expert}#{seq}", ("round", "expert", "seq"), "PERSP#", "PERSP"),
    ("STATUS#{status}", ("status",), "STATUS#", "STATUS"),
    ("{a}#{b}#{a}", ("a", "b"), "", ""),                                        # repeats listed once
    ("doc{n}", ("n",), "doc", ""),                                              # no separator: no TYPE
])
def test_placeholders_and_prefixes(text, placeholders, prefix, type_prefix):
    t = KeyTemplate(text)
    assert (t.placeholders, t.prefix, t.type_prefix) == (placeholders, prefix, type_prefix)
    assert t.is_constant == (not placeholders)


def test_round_trip_and_separator_in_value():
    t = KeyTemplate("EXPERT#{expert}#{seq}")
    assert t.round_trips("EXPERT#muffin#1")
    key = t.render({"expert": "a#b", "seq": "1"})                               # a value holding '#'
    assert key == "EXPERT#a#b#1"
    assert not t.round_trips(key)                                               # does not parse back
    assert KeyTemplate("P#{round:03d}").round_trips("P#007")
    assert not KeyTemplate("P#{round:03d}").round_trips("P#7")


def test_repeated_placeholder_must_agree():
    t = KeyTemplate("{a}#{a}")
    assert t.parse("x#x") == {"a": "x"}
    assert t.parse("x#y") is None


@pytest.mark.parametrize("text, message", [
    ("", "non-empty"),
    ("EXPERT#{expert", "malformed"),
    ("X#{a.b}", "bad placeholder"),
    ("X#{0}", "bad placeholder"),
    ("X#{a!r}", "bad placeholder"),
])
def test_bad_templates(text, message):
    with pytest.raises(TemplateError, match=message):
        KeyTemplate(text, where="entities.E.key.sk")


def test_missing_and_badly_formatted_values():
    t = KeyTemplate("PERSP#{round:03d}#{expert}")
    with pytest.raises(TemplateError, match="needs expert") as e:
        t.render({"round": "1"}, where="perspectives.csv:7")
    assert e.value.where == "perspectives.csv:7"
    assert t.render_optional({"round": "1"}) is None                             # sparse index keys
    assert t.render_optional({"round": "1", "expert": ""}) is None
    with pytest.raises(TemplateError, match="'one'.*format spec '03d'"):
        t.render({"round": "one", "expert": "m"})


def test_fixed_width_detection():
    assert KeyTemplate("{round:03d}").parts[0].is_fixed_width
    assert KeyTemplate("{ts:>12}").parts[0].is_fixed_width
    assert not KeyTemplate("{round}").parts[0].is_fixed_width
    assert not KeyTemplate("{score:.2f}").parts[0].is_fixed_width
    assert not KeyTemplate("{n:<8}").parts[0].is_fixed_width            # "2       " sorts after "10      "
    assert KeyTemplate("{n:08.3f}").parts[0].is_fixed_width


@pytest.mark.parametrize("text", ["DIALOGUE#{dialogue_id}", "ROUND#{round}#PERSPECTIVE#{perspective_id}", "META",
                                  "{a}{b}#{a}", "ROUND#{round:03d}#X", "T#{t:>5}"])
@pytest.mark.parametrize("row", [{"dialogue_id": "d1", "round": "7", "perspective_id": "p#2", "a": "é", "b": "東京",
                                  "t": "x"},
                                 {"dialogue_id": "", "round": None, "perspective_id": 3, "a": Decimal("1"), "b": True,
                                  "t": "y"},
                                 {}])
def test_the_plain_render_is_render_where_it_answers(text, row):
    """The loader's fast path gives the key render gives, and leaves every other row (formats, numbers, empty or
    missing values) to render and its errors."""
    t = KeyTemplate(text)
    fast = t.render_plain(row)
    try:
        slow = t.render(row)
    except TemplateError:
        slow = None
    plain = all(isinstance(row.get(n), str) and row.get(n) for n in t.placeholders) and ":" not in text
    assert fast == (slow if plain else None)
    assert (fast is not None) == plain


def test_the_regex_pass_over_a_chunk_of_keys_is_read_once_per_chunk():
    """lines_found feeds all_split_cleanly and clean_values; a KeyRows chunk remembers it per template and keys,
    and other keys are matched anew."""
    from blue_nb.rules.key_rows import KeyRows
    from blue_nb.spec import KeyTemplate

    t = KeyTemplate("PERSP#{round}#{expert}#{seq}")
    a, b = ["PERSP#1#ann#2", "PERSP#10#bob#3"], ["PERSP#2#cy#1", "PERSP#x#a#b#c"]
    rows = KeyRows(["P", "P"], [1, 1], {"sk": a})
    assert rows.lines_found(t, a) is rows.lines_found(t, list(a))          # the same keys: matched once
    assert t.clean_values(a, ["seq", "round"], rows.lines_found(t, a)) == [["2", "3"], ["1", "10"]]
    assert t.all_split_cleanly(a, rows.lines_found(t, a))
    assert rows.lines_found(t, b) == t.lines_found(b) and not t.all_split_cleanly(b, rows.lines_found(t, b))
    assert t.clean_values(b, ["seq"]) is None and t.lines_found(["a\nb", "c"]) is False


@settings(max_examples=200, deadline=None)
@given(text=st.sampled_from(["PERSP#{round}#{expert}#{seq}", "{a}#{b}", "X#{a}{b}#{a}#Y", "{a}", "T#{t:>5}#{n}",
                             "é#{a}#東京#{b}"]),
       values=st.lists(st.lists(st.text(alphabet="ab#1é ", max_size=4), min_size=4, max_size=4), min_size=1,
                       max_size=8))
def test_clean_starts_are_where_values_at_finds_each_value(text, values):
    """For keys that all split cleanly, clean_starts gives each placeholder's start in each key without
    matching the key again: what values_at finds."""
    t = KeyTemplate(text)
    keys = []
    for row in values:
        try:
            keys.append(t.render(dict(zip(["round", "expert", "seq", "a"], row)) | dict(zip(["b", "t", "n"], row))))
        except TemplateError:
            return
    found = t.lines_found(keys)
    if found is False or t.clean_values(keys, list(t.placeholders), found) is None:
        return
    for name in t.placeholders:
        assert t.clean_starts(found, name) == [t.values_at(k, [name])[0][1] for k in keys]
