"""Every message a client may send on Streamlit's websocket passes ui/hardening.gate (issue 45,
items 2 and 3): an allowlist of message types, and a rerun rate per session that keeps the newest
rerun. Driven without a server through the proto messages themselves; tests/test_protocol.py sends
them to a real one."""

import pytest
from streamlit.proto.BackMsg_pb2 import BackMsg

from ui import hardening

TYPES = [f.name for f in BackMsg.DESCRIPTOR.oneofs_by_name["type"].fields]


class Session:
    id = "s1"


def _msg(kind: str) -> BackMsg:
    m = BackMsg()
    field = BackMsg.DESCRIPTOR.fields_by_name[kind]
    if field.message_type is None:
        setattr(m, kind, True)
    else:
        getattr(m, kind).SetInParent()
    return m


def test_only_the_messages_a_page_needs_pass_and_the_rest_are_refused():
    assert len(TYPES) > 5, "no message types found to enumerate"
    assert "load_git_info" in TYPES and "clear_cache" in TYPES
    passed = []
    for kind in TYPES:
        m = _msg(kind)
        if kind == "backend_operation_request":
            m.backend_operation_request.deferred_file.SetInParent()
        hardening.gate(Session(), m, passed.append)
    got = {m.WhichOneof("type") for m in passed}
    assert got == set(hardening.ALLOWED_MESSAGES) & set(TYPES)
    assert "load_git_info" not in got and "set_run_on_save" not in got and "clear_cache" not in got


def test_a_developers_backend_operation_is_refused_and_a_pages_passes():
    ops = [
        f.name
        for f in BackMsg.DESCRIPTOR.fields_by_name["backend_operation_request"]
        .message_type.oneofs_by_name["payload"]
        .fields
    ]
    assert "install_skills" in ops
    passed = []
    for op in ops:
        m = BackMsg()
        getattr(m.backend_operation_request, op).SetInParent()
        hardening.gate(Session(), m, passed.append)
    assert {p.backend_operation_request.WhichOneof("payload") for p in passed} == set(
        ops
    ) & hardening.ALLOWED_OPERATIONS


class Clock:
    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


def test_a_rerun_flood_runs_at_the_sessions_rate_and_the_newest_rerun_is_kept(monkeypatch):
    timers = []
    monkeypatch.setattr(hardening, "_later", lambda s, fn: timers.append((s, fn)) or object())
    clock = Clock()
    session = Session()
    session._attn_reruns = hardening.RerunGate(clock)
    handled = []
    for i in range(50):  # 50 reruns at once, each with its own query (its widgets' state)
        m = BackMsg()
        m.rerun_script.query_string = f"n={i}"
        hardening.gate(session, m, handled.append)
    assert len(handled) == hardening.RERUN_BURST  # the burst runs, the rest waits
    assert len(timers) == 1  # one waits, replaced by each newer one
    seconds, fire = timers.pop()
    clock.now += seconds
    fire()
    assert len(handled) == hardening.RERUN_BURST + 1
    assert handled[-1].rerun_script.query_string == "n=49"  # the newest: no input lost
    # sustained: a rerun 5 times a second for 10 s, against a rate of 4: about 40 run at once, the
    # rest wait as one (the newest), handled when a token comes
    before, start, sent = len(handled), clock.now, 0
    while clock.now - start < 10:
        clock.now += 1 / (hardening.RERUN_RATE + 1)
        m = BackMsg()
        m.rerun_script.query_string = f"late={sent}"
        hardening.gate(session, m, handled.append)
        sent += 1
    ran = len(handled) - before
    assert ran <= hardening.RERUN_RATE * (clock.now - start) + 1 and ran < sent - 5
    assert len(timers) == 1
    seconds, fire = timers.pop()
    clock.now += seconds
    fire()
    assert handled[-1].rerun_script.query_string == f"late={sent - 1}"


@pytest.mark.parametrize("kind", ["app_heartbeat", "stop_script"])
def test_allowed_messages_are_never_rate_limited(kind):
    handled = []
    for _ in range(100):
        hardening.gate(Session(), _msg(kind), handled.append)
    assert len(handled) == 100


def test_a_click_and_a_full_rerun_waiting_are_kept_when_a_newer_rerun_replaces_them(monkeypatch):
    timers = []
    monkeypatch.setattr(hardening, "_later", lambda s, fn: timers.append(fn) or object())
    session = Session()
    clock = Clock()
    session._attn_reruns = hardening.RerunGate(clock)
    handled = []
    for _ in range(hardening.RERUN_BURST):  # the burst spent
        hardening.gate(session, _msg("rerun_script"), handled.append)
    click = BackMsg()  # a full rerun with a button's click ...
    w = click.rerun_script.widget_states.widgets.add()
    w.id, w.trigger_value = "apply", True
    hardening.gate(session, click, handled.append)
    later = BackMsg()  # ... then a fragment's own rerun with a slider's new value
    later.rerun_script.fragment_id = "room-follow"
    w = later.rerun_script.widget_states.widgets.add()
    w.id, w.double_value = "temperature", 2.5
    hardening.gate(session, later, handled.append)
    clock.now += 1
    timers.pop()()
    last = handled[-1].rerun_script
    assert last.fragment_id == ""  # the full rerun the click asked for
    got = {x.id: x.WhichOneof("value") for x in last.widget_states.widgets}
    assert got == {"apply": "trigger_value", "temperature": "double_value"}


def test_every_widget_value_the_server_keeps_is_bounded_whatever_the_browsers_max_chars_said(monkeypatch):
    """Issue 45, item 9: 950,000 characters in the room-code box, kept in each idle session."""
    big = "码" * 950_000
    m = BackMsg()
    states = m.rerun_script.widget_states.widgets
    for wid, field, value in [
        ("room_code", "string_value", big),
        ("view", "json_value", '{"view": "' + "x" * 100_000 + '"}'),
        ("pick", "string_array_value", None),
        ("nums", "double_array_value", None),
        ("blob", "bytes_value", b"\0" * 2_000_000),
        ("typed", "string_trigger_value", None),
    ]:
        w = states.add()
        w.id = wid
        if field == "string_array_value":
            w.string_array_value.data.extend(["y" * 20_000] * 10_000)
        elif field == "double_array_value":
            w.double_array_value.data.extend([1.0] * 100_000)
        elif field == "string_trigger_value":
            w.string_trigger_value.data = big
        else:
            setattr(w, field, value)
    assert {f.name for f in BackMsg.DESCRIPTOR.fields} and len(states) == 6
    handled = []
    hardening.gate(Session(), m, handled.append)
    (got,) = handled
    kept = {w.id: w for w in got.rerun_script.widget_states.widgets}
    assert kept["room_code"].string_value == big[: hardening.WIDGET_TEXT_MAX]
    assert kept["view"].json_value == "null"
    assert len(kept["pick"].string_array_value.data) == hardening.WIDGET_LIST_MAX
    assert max(len(x) for x in kept["pick"].string_array_value.data) == hardening.WIDGET_ITEM_MAX
    assert len(kept["nums"].double_array_value.data) == hardening.WIDGET_LIST_MAX
    assert kept["blob"].WhichOneof("value") is None
    assert len(kept["typed"].string_trigger_value.data) == hardening.WIDGET_TEXT_MAX
    assert got.ByteSize() < 200_000  # from about 205 MB


def test_a_widget_value_within_the_bounds_is_untouched():
    m = BackMsg()
    w = m.rerun_script.widget_states.widgets.add()
    w.id, w.string_value = "text", "The cat sat on the mat 猫坐在垫子上 😀"
    v = m.rerun_script.widget_states.widgets.add()
    v.id, v.json_value = "view", '{"view": {"layer": 1, "temp": 2.5}}'
    before = m.SerializeToString()
    handled = []
    hardening.gate(Session(), m, handled.append)
    assert handled[0].SerializeToString() == before
