"""The agon:debate component on wasmtime: loading, conversion, and the Session.

Conversion only: every debate decision is made inside the component. Each
Session owns its own wasmtime Store, so different sessions may live on
different threads; one session must be used from one thread at a time.
"""

from __future__ import annotations

import json
import os
import re
import threading
from collections.abc import Mapping
from importlib import resources
from typing import Any, Callable, Optional, Union, cast

import wasmtime
from wasmtime import component as wc
from wasmtime.component import _types as wt

from .types import Outcome, Transcript, Usage, Variant

_ENGINE_INTERFACE = "agon:debate/engine@0.1.0"
_WIRE_INTERFACE = "agon:debate/wire@0.1.0"
_REPORT_INTERFACE = "agon:debate/report@0.1.0"

Spec = Union[str, Mapping[str, Any]]


class AgonError(Exception):
    """Misuse of the engine (bad spec, unknown request id, bad journal), with the core's message.

    ``kind`` is the WIT ``error-kind`` case (``"invalid-spec"``, ...), ``detail`` its payload.
    """

    def __init__(self, error: Mapping[str, Any]) -> None:
        super().__init__(error["message"])
        self.kind = error["kind"].tag
        self.detail = error["kind"].value


def _lift(value: Any) -> Any:
    """wasmtime's component values → plain Python (records → dicts with snake_case keys)."""
    if isinstance(value, wc.Record):
        return {name.replace("-", "_"): _lift(v) for name, v in vars(value).items()}
    if isinstance(value, wc.Variant):
        return Variant(value.tag, _lift(value.payload))
    if isinstance(value, list):
        return [_lift(v) for v in value]
    if isinstance(value, tuple):
        return tuple(_lift(v) for v in value)
    return value


def _text(value: Any) -> str:
    if not isinstance(value, str):
        raise TypeError(f"agon.wasm returned {type(value).__name__} where a string was expected")
    return value


def _lower(value: Any) -> Any:
    """Plain Python → wasmtime's component values (the inverse of :func:`_lift`)."""
    if isinstance(value, Variant):
        return wc.Variant(value.tag, _lower(value.value))
    if isinstance(value, Mapping):
        record = wc.Record()
        for name, v in value.items():
            setattr(record, name.replace("_", "-"), _lower(v))
        return record
    if isinstance(value, list):
        return [_lower(v) for v in value]
    if isinstance(value, tuple):
        return tuple(_lower(v) for v in value)
    return value


# --- types read once -----------------------------------------------------------------------
#
# wasmtime-py (50.x) reads a function's WIT type anew on every call: each record's
# fields, each variant's cases, each list's element, through ctypes, and again for
# every value it converts. For this engine that was most of a debate's time in
# Python (profiled: ~85% of a 5-seat, 5-round debate). The types never change, so
# each function's type is read once, and every type object in it is given a class
# whose reflective properties return what was read: the same objects, the same
# conversion code, without the re-reading.

_FROZEN_PROPERTIES: dict[type, tuple[str, ...]] = {
    wt.FuncType: ("params", "result"),
    wt.RecordType: ("fields",),
    wt.VariantType: ("cases",),
    wt.ListType: ("element",),
    wt.TupleType: ("elements",),
    wt.OptionType: ("payload",),
    wt.ResultType: ("ok", "err"),
    wt.EnumType: ("names",),
    wt.FlagsType: ("names",),
}
_frozen_classes: dict[type, type] = {}


def _read(name: str) -> Callable[[Any], Any]:
    def read(self: Any) -> Any:
        return self.__dict__["_agon_" + name]

    return read


def _frozen_class(cls: type) -> type:
    frozen = _frozen_classes.get(cls)
    if frozen is None:
        namespace: dict[str, Any] = {name: property(_read(name)) for name in _FROZEN_PROPERTIES[cls]}
        if issubclass(cls, wt.VariantLikeType):
            namespace["_tagged"] = lambda self: self.__dict__["_agon_tagged"]
        if cls is wt.ListType:
            namespace["_is_bytes"] = lambda self: self.__dict__["_agon_is_bytes"]
        frozen = _frozen_classes[cls] = type(cls.__name__, (cls,), namespace)
    return frozen


def _freeze(ty: Any) -> Any:
    """Read ``ty``'s type tree once; from then on it answers from what was read."""
    cls = type(ty)
    if cls not in _FROZEN_PROPERTIES:
        return ty  # a leaf (string, u32, …) or already frozen
    read = {}
    for name in _FROZEN_PROPERTIES[cls]:
        value = getattr(ty, name)
        if name in ("params", "fields", "cases"):
            value = [(n, None if t is None else _freeze(t)) for n, t in value]
        elif name == "elements":
            value = [_freeze(t) for t in value]
        elif name != "names" and value is not None:
            value = _freeze(value)
        read["_agon_" + name] = value
    ty.__class__ = _frozen_class(cls)
    ty.__dict__.update(read)
    if isinstance(ty, wt.VariantLikeType):
        ty.__dict__["_agon_tagged"] = wt.VariantLikeType._tagged(ty)
    if isinstance(ty, wt.ListType):
        ty.__dict__["_agon_is_bytes"] = wt.ListType._is_bytes(ty)
    return ty


def _typed_once(func: wc.Func, fty: Any) -> wc.Func:
    """``func`` answering with the frozen type ``fty``: ``Func.__call__`` asks
    ``self.type(store)`` on every call (the instance attribute shadows the method)."""
    def frozen_type(store: Any) -> Any:
        return fty

    func.type = frozen_type  # type: ignore[method-assign]
    return func


# --- outputs as one JSON string ---------------------------------------------------------------
#
# `poll-json` hands every output up to the next idle or done over as one string: one call
# and one string instead of a call per output and a ctypes conversion per value. Its JSON
# is the WIT's shape (serde over the component's own WIT types); it is read back here
# against the same WIT types the SDK read once, into exactly what `poll` gives.


def _camel(name: str) -> str:
    """A WIT case name as the component's serde writes it: ``turn-started`` → ``TurnStarted``."""
    return "".join(part[:1].upper() + part[1:] for part in name.split("-"))


def _identity(value: Any) -> Any:
    return value


def _decoder(ty: Any) -> Callable[[Any], Any]:
    """A function from ``ty``'s JSON (as `poll-json` writes it) to what :func:`_lift` gives for it."""
    if isinstance(ty, wt.RecordType):
        fields = [(name.replace("-", "_"), _decoder(fty)) for name, fty in ty.fields]
        return lambda value: {key: decode(value[key]) for key, decode in fields}
    if isinstance(ty, wt.EnumType):
        names = {_camel(name): name for name in ty.names}
        return lambda value: names[value]
    if isinstance(ty, wt.OptionType):
        if ty._tagged():
            raise TypeError("agon.wasm: an option of an option cannot be read from JSON")
        inner = _decoder(ty.payload)
        return lambda value: None if value is None else inner(value)
    if isinstance(ty, wt.VariantType):
        cases = {_camel(name): (name, None if cty is None else _decoder(cty)) for name, cty in ty.cases}
        tagged = ty._tagged()

        def variant(value: Any) -> Any:
            if isinstance(value, str):
                name, payload = cases[value][0], None
            else:
                ((key, raw),) = value.items()
                name, decode = cases[key]
                payload = None if decode is None else decode(raw)
            return Variant(name, payload) if tagged else payload

        return variant
    if isinstance(ty, wt.ListType):
        element = _decoder(ty.element)
        if ty._is_bytes():
            return bytes
        return lambda value: [element(v) for v in value]
    if isinstance(ty, wt.TupleType):
        elements = [_decoder(t) for t in ty.elements]
        return lambda value: tuple(decode(v) for decode, v in zip(elements, value))
    if isinstance(ty, (wt.ResultType, wt.FlagsType)):
        raise TypeError(f"agon.wasm: {type(ty).__name__} is not read from JSON")
    return _identity  # bool, integers, floats, char, string


#: The package's components: the engine (debates and the wire layer) and the report
#: (rendering and evaluation reports), each loaded the first time it is used. For
#: each, its file in the package, the variable that names another, its interfaces.
_PARTS = {
    "engine": ("agon.wasm", "AGON_WASM", (_ENGINE_INTERFACE, _WIRE_INTERFACE)),
    "report": ("agon-report.wasm", "AGON_REPORT_WASM", (_REPORT_INTERFACE,)),
}


class _Component:
    """A compiled component, shared by every session of the process."""

    _lock = threading.Lock()
    _loaded: dict[str, "_Component"] = {}

    def __init__(self, part: str) -> None:
        file, variable, interfaces = _PARTS[part]
        self.engine = wasmtime.Engine()
        path = os.environ.get(variable)
        if path:
            self.component = wc.Component.from_file(self.engine, path)
        else:
            wasm = resources.files(__package__).joinpath(file)
            if not wasm.is_file():
                raise RuntimeError(
                    f"{file} is missing from the agon package: build it and copy it in "
                    f"(scripts/setup-sdk.sh does both), or set {variable} to its path"
                )
            self.component = wc.Component(self.engine, wasm.read_bytes())
        self.linker = wc.Linker(self.engine)
        self.interfaces = {name: self.component.get_export_index(name) for name in interfaces}
        #: Each export's type, read once (the component's types are the same in every instance).
        self.types: dict[tuple[str, str], Any] = {}
        #: `poll-json`'s reader, built from `poll`'s type once.
        self.output_decoder: Optional[Callable[[Any], Any]] = None

    @classmethod
    def get(cls, part: str) -> "_Component":
        with cls._lock:
            loaded = cls._loaded.get(part)
            if loaded is None:
                loaded = cls._loaded[part] = _Component(part)
            return loaded


class _Instance:
    """One store and one instance of a component (the engine unless ``part`` says)."""

    def __init__(self, part: str = "engine") -> None:
        loaded = _Component.get(part)
        self.store = wasmtime.Store(loaded.engine)
        self._loaded = loaded
        self._instance = loaded.linker.instantiate(self.store, loaded.component)
        self._funcs: dict[tuple[str, str], wc.Func] = {}

    def _func(self, name: str, interface: str = _ENGINE_INTERFACE) -> wc.Func:
        """An export, with its type read once per process."""
        key = (interface, name)
        func = self._funcs.get(key)
        if func is None:
            index = self._loaded.component.get_export_index(name, self._loaded.interfaces[interface])
            func = self._instance.get_func(self.store, index) if index else None
            if func is None:
                raise RuntimeError(f"the component exports no function {name} in {interface}")
            fty = self._loaded.types.get(key)
            if fty is None:
                fty = self._loaded.types[key] = _freeze(func.type(self.store))
            func = self._funcs[key] = _typed_once(func, fty)
        return func

    def call(self, name: str, *args: Any, interface: str = _ENGINE_INTERFACE) -> Any:
        """Call an export; a WIT ``result`` is unwrapped, its error raised as AgonError
        (as :class:`WireFailure` for the wire interface, ValueError for the report's)."""
        func = self._func(name, interface)
        value = func(self.store, *args)
        result = func.type(self.store).result
        if not isinstance(result, wc.ResultType):
            return value
        error = {_ENGINE_INTERFACE: AgonError, _WIRE_INTERFACE: WireFailure}.get(interface, ValueError)
        return _unwrap(result, value, error)

    def output_decoder(self) -> Callable[[Any], Any]:
        """Reads one element of `poll-json` into what `poll` gives (after :func:`_lift`)."""
        decode = self._loaded.output_decoder
        if decode is None:
            poll = self._func("[method]session.poll")
            decode = self._loaded.output_decoder = _decoder(poll.type(self.store).result)
        return decode


def _report(name: str, *args: Any) -> Any:
    """Call the report component (rendering and evaluation reports), loaded the first time."""
    return _Instance("report").call(name, *args, interface=_REPORT_INTERFACE)


def _unwrap(result: wc.ResultType, value: Any, error: Callable[[Any], Exception] = AgonError) -> Any:
    """The ok value of a WIT ``result``, or its error raised (as AgonError by default).

    wasmtime-py lifts ``result<T, E>`` as a tagged ``Variant("ok" | "err", ...)``
    only when T and E lift to the same Python class (two records, say); otherwise
    it gives the payload alone, and the payload's class tells which case it is.
    """
    ok_classes: set[type] = set()
    err_classes: set[type] = set()
    for ty, classes in ((result.ok, ok_classes), (result.err, err_classes)):
        if ty is None:
            classes.add(object)
        else:
            ty.add_classes(classes)
    if ok_classes & err_classes:
        if value.tag == "err":
            raise error(_lift(value.payload))
        return value.payload
    if isinstance(value, tuple(err_classes)):
        raise error(_lift(value))
    return value


def wit_usage(usage: Optional[Mapping[str, Any]]) -> Optional[dict[str, Any]]:
    """Usage as the WIT record takes it: every field, the optional ones ``None`` when left out."""
    if usage is None:
        return None
    return {
        "prompt_tokens": usage["prompt_tokens"],
        "completion_tokens": usage["completion_tokens"],
        **{k: usage.get(k) for k in ("reasoning_tokens", "cached_tokens", "cache_write_tokens")},
    }


def _wit_input(input: Variant) -> Variant:
    """An input with every field the WIT record has: the optional ones ``None`` when left out."""
    if not isinstance(input.value, Mapping):
        return input
    value = dict(input.value)
    value["usage"] = wit_usage(value.get("usage"))
    if input.tag == "reply":
        value.setdefault("stop", None)
        value.setdefault("model", None)
    return Variant(input.tag, value)


def spec_text(spec: Spec) -> str:
    """A spec as the engine takes it: JSON text, or a mapping to serialize."""
    return spec if isinstance(spec, str) else json.dumps(spec)


class Session:
    """One debate: the WIT ``session`` resource.

    Drain :meth:`poll` after every change until it gives ``idle`` or ``done``;
    perform each released request; feed back what came of it with :meth:`handle`.
    """

    def __init__(self, instance: _Instance, resource: wc.ResourceAny) -> None:
        self._instance = instance
        self._resource: Optional[wc.ResourceAny] = resource

    @classmethod
    def create(cls, spec: Spec) -> "Session":
        """Start a debate from a spec (JSON text or a mapping)."""
        instance = _Instance()
        return cls(instance, instance.call("[static]session.create", spec_text(spec)))

    @classmethod
    def from_journal(cls, journal: str) -> "Session":
        """Rebuild a debate from its journal; only unanswered requests are polled again."""
        instance = _Instance()
        return cls(instance, instance.call("[static]session.from-journal", journal))

    def _method(self, name: str, *args: Any) -> Any:
        if self._resource is None:
            raise RuntimeError("this session is closed")
        return self._instance.call(f"[method]session.{name}", self._resource, *args)

    def poll(self) -> Variant:
        """What to do next: ``request`` (a ModelRequest), ``event`` (a DebateEvent), ``idle``, or ``done`` (the Outcome)."""
        return cast(Variant, _lift(self._method("poll")))

    def poll_all(self) -> list[Variant]:
        """Every output :meth:`poll` would give up to and including the next ``idle`` or
        ``done``, in one call across the boundary: the same values, far cheaper in Python."""
        decode = self._instance.output_decoder()
        return [decode(output) for output in json.loads(_text(self._method("poll-json")))]

    def handle(self, input: Variant) -> str:
        """Feed ``Variant("reply", {...})`` or ``Variant("failed", {...})``; returns the journal line to append.
        Optional fields may be left out (``usage``, ``stop``, usage's ``reasoning_tokens``, …)."""
        return _text(self._method("handle", _lower(_wit_input(input))))

    def reply(self, id: int, text: str, usage: Optional[Usage] = None, stop: Optional[str] = None) -> str:
        """Feed a model's reply to request ``id`` (``stop``: ``complete``, ``token-limit`` for a
        cut reply, ``other``); returns the journal line."""
        return self.handle(Variant("reply", {"id": id, "text": text, "usage": wit_usage(usage), "stop": stop}))

    def fail(self, id: int, kind: str, message: str, usage: Optional[Usage] = None) -> str:
        """Feed a failed call (``kind``: timeout, rate-limited, provider-error, refused, cancelled,
        transport, token-limit), with what it billed all the same."""
        return self.handle(Variant("failed", {"id": id, "kind": kind, "message": message, "usage": wit_usage(usage)}))

    def journal(self) -> str:
        """The whole journal so far (just the header before any input)."""
        return _text(self._method("journal"))

    def outstanding(self) -> list[int]:
        """Requests released but not yet answered."""
        return list(self._method("outstanding"))

    def outcome(self) -> Optional[Outcome]:
        return cast(Optional[Outcome], _lift(self._method("outcome")))

    def transcript_json(self) -> str:
        """The transcript as canonical, pretty JSON: the same bytes in every host."""
        return _text(self._method("transcript-json"))

    def transcript(self) -> Transcript:
        """The transcript (format 2), read from :meth:`transcript_json`."""
        return cast(Transcript, json.loads(self.transcript_json()))

    def _report(self, name: str, *args: Any) -> Any:
        """The report component's ``name`` for this session's transcript."""
        return _report(name, self.transcript_json(), *args)

    def transcript_markdown(self) -> str:
        """The debate as Markdown, model text made inert (the report component's)."""
        return _text(self._report("transcript-markdown"))

    def results_markdown(self) -> str:
        """The protocol's named results alone (a ranking, a scorecard, a closing document), as Markdown."""
        return _text(self._report("results-markdown"))

    def adr_markdown(self) -> str:
        """The debate as an Architecture Decision Record (Markdown): status, context, decision,
        the options considered, consequences and dissent, the bytes every host renders."""
        return _text(self._report("adr-markdown"))

    def html_page(self, timings_ndjson: str = "") -> str:
        """The debate as one self-contained HTML page to share, the bytes ``agon export --format
        html`` writes: inline style, no script, a Content-Security-Policy that lets nothing load.
        ``timings_ndjson`` (one call attempt a line), when given, adds the call timeline."""
        return _text(self._report("html-page", timings_ndjson))

    def cost_summary(self) -> dict[str, Any]:
        """What the debate cost so far, as every host reports it: ``cost_micro_usd`` (None
        unless every seat that made a call had a price), ``unpriced`` (``[{"seat", "model"}]``:
        why there is no total) and ``estimated_calls`` (calls whose tokens are estimated)."""
        return cast("dict[str, Any]", _lift(self._method("cost-summary")))

    def spec_json(self) -> str:
        """The spec as the engine normalized it."""
        return _text(self._method("spec-json"))

    def pictures(self) -> list[tuple[str, str]]:
        """The debate's pictures as ``[(file_name, svg), ...]``: ``stance-map.svg`` when it
        read agreement, ``chart-<result>.svg`` for a ranking or scorecard. The same bytes
        the CLI writes beside ``transcript.md``; model text in them is escaped and clipped."""
        return [(str(name), str(svg)) for name, svg in self._report("pictures")]

    def replay_note(self) -> Optional[str]:
        """Set when another engine version wrote the journal this was rebuilt from:
        the sentence to show before trusting the replay."""
        note = self._method("replay-note")
        return note if isinstance(note, str) else None

    def close(self) -> None:
        """Free the session inside the component (also done when it is garbage collected)."""
        if self._resource is not None:
            self._resource.drop(self._instance.store)
            self._resource = None

    def __enter__(self) -> "Session":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


_catalog: Optional[dict[str, Any]] = None


def catalog() -> dict[str, Any]:
    """The model catalog this package ships (``models.json``: a snapshot of models.dev, MIT):
    each model's traits (reasoning, temperature, context, max output) and price, by reference.
    A copy: change it freely and pass it to :func:`build_spec` as ``catalog``."""
    global _catalog
    if _catalog is None:
        shipped = resources.files(__package__).joinpath("models.json")
        if not shipped.is_file():
            raise RuntimeError(
                "models.json is missing from the agon package: copy catalog/models.json in "
                "(scripts/setup-sdk.sh does), or pass build_spec a catalog of your own (or None)"
            )
        _catalog = json.loads(shipped.read_text(encoding="utf-8"))
    return cast("dict[str, Any]", json.loads(json.dumps(_catalog)))


def build_spec(request: Mapping[str, Any]) -> dict[str, Any]:
    """Build a spec from what a user chose (``question``, ``protocol`` as ``NAME`` or
    ``NAME:SEAT``, ``context``, ``files`` as ``[{"path", "text"}]`` (see
    :func:`agon.context_file`), ``follows`` as ``{"session": ID, "transcript": {...}, "files"?: [...]}``
    (a finished debate to follow up: the engine quotes its question, outcome, synthesis and
    last words in every prompt, and takes its context and ``files`` unless the request has its
    own), ``models``, ``judge``, ``no_judge``, ``options``, ``roles`` as role-file
    texts, ``role_models``, ``rounds``, ``seed``, ``limits``, ``prices``, ``max_cost``,
    ``reasoning`` as ``{"effort": "low"|"medium"|"high", "budget": N}`` for every seat,
    ``seat_reasoning`` by seat id, ``catalog_overrides`` by model reference).
    Seat ids, the judge and role-council's roles are decided by the engine, as in every
    host. The spec gets each model's price and traits from the shipped catalog
    (:func:`catalog`), so every request carries what the wire layer needs to shape its call
    (``max_completion_tokens`` and no temperature for gpt-5); ``catalog`` gives another,
    ``catalog=None`` none. Returns the spec, validated and normalized; raises AgonError
    naming the field."""
    choices = dict(request)
    if "catalog" not in choices:
        choices["catalog"] = _catalog if _catalog is not None else catalog()
    text = _text(_Instance().call("build-spec", json.dumps(choices)))
    return cast("dict[str, Any]", json.loads(text))


def validate_spec(spec: Spec) -> str:
    """Check a spec without starting a debate; returns it normalized, as JSON text."""
    return _text(_Instance().call("validate-spec", spec_text(spec)))


def estimate(spec: Spec) -> dict[str, Any]:
    """The worst case of a spec, before it runs: ``{"calls", "prompt_tokens",
    "completion_tokens", "cost_micro_usd" (None unless every model is priced), "unpriced"}``."""
    return cast("dict[str, Any]", _lift(_Instance().call("estimate", spec_text(spec))))


def parse_role(text: str) -> dict[str, Any]:
    """Parse a role file (markdown with YAML frontmatter); raises AgonError naming the line."""
    return cast("dict[str, Any]", _lift(_Instance().call("parse-role", text)))


def builtin_roles() -> list[str]:
    """The built-in role files (four debaters and a judge), as text."""
    return cast("list[str]", _Instance().call("builtin-roles"))


def check_document(document: Spec) -> str:
    """Check a protocol document (a mapping or JSON text) on its own; returns it normalized,
    as JSON text. A mistake raises AgonError whose ``detail["field"]`` is its JSON path."""
    return _text(_Instance().call("check-document", spec_text(document)))


def document_info(document: Spec) -> dict[str, Any]:
    """A protocol document (a mapping or JSON text), checked and described as
    ``protocols()`` describes a built-in: ``name``, ``summary``, its rounds and seats, and the
    ``options`` a spec may set for it. A mistake raises AgonError, as ``check_document`` does."""
    return cast("dict[str, Any]", _lift(_Instance().call("document-info", spec_text(document))))


def protocol_documents() -> list[tuple[str, str]]:
    """The built-in protocols that are protocol documents: ``[(name, document_json), ...]``,
    to start one's own from."""
    return [(str(name), str(text)) for name, text in _Instance().call("protocol-documents")]


def protocols() -> list[dict[str, str]]:
    """Every protocol the engine offers: ``[{"name", "summary"}]``."""
    return cast("list[dict[str, str]]", _lift(_Instance().call("protocols")))


def html_page(transcript_json: str, timings_ndjson: str = "") -> str:
    """A transcript's JSON (``transcript.json``, or ``Session.transcript_json()``) as the one
    self-contained HTML page every host writes; ``timings_ndjson`` adds the call timeline.
    Raises ValueError, naming the field, when the text is not a transcript."""
    return _text(_report("html-page", transcript_json, timings_ndjson))


def timeline_svg(timings_ndjson: str, question: str = "") -> Optional[str]:
    """The call timeline as SVG, from call timings as NDJSON (one ``CallTiming`` object a
    line, as the CLI's ``timings.ndjson``), headed by the debate's ``question`` (empty:
    none shown); ``None`` when there are none. A line that cannot be read is skipped."""
    svg = _report("timeline-svg", timings_ndjson, question)
    return svg if isinstance(svg, str) else None


def version() -> str:
    return _text(_Instance().call("version"))


# --- the wire layer ----------------------------------------------------------------------------
#
# agon-wire, the one place every host knows the providers' wire formats, through the WIT
# interface `wire`: the HTTP request for a model request, and the reading of the reply.
# The providers (providers.py) keep only the transport.


class WireFailure(Exception):
    """A call that came to nothing, as the wire layer read it: the WIT ``wire-failure``
    (``kind``, ``message``, ``retryable``, ``retry_after_ms``, ``usage``)."""

    def __init__(self, failure: Union[Mapping[str, Any], str]) -> None:
        if isinstance(failure, str):
            # An exchange called out of turn says so in words.
            failure = {"kind": "provider-error", "message": failure, "retryable": False, "retry_after_ms": None,
                       "usage": None}
        super().__init__(failure["message"])
        self.failure = dict(failure)


def _case(name: str) -> str:
    """An enum value as the WIT names it: ``CrossExam``, ``cross_exam`` → ``cross-exam``."""
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "-", name).lower().replace("_", "-")


def _wit_request(request: Mapping[str, Any]) -> Any:
    """A request as a provider gets it (``poll``'s or ``poll_all``'s dict, or one written by
    hand) → the WIT ``model-request``. Enum values may be WIT names or serde's (``System``);
    ``expect``, ``reasoning``, ``traits`` and ``cache_marks`` may be left out; ``traits`` may be a mapping."""
    traits = request.get("traits") or []
    if isinstance(traits, Mapping):
        traits = list(traits.items())
    reasoning = request.get("reasoning")
    return _lower({
        "id": request["id"],
        "seat": request["seat"],
        "model": request["model"],
        "purpose": _case(request["purpose"]),
        "round": request["round"],
        "phase": _case(request["phase"]),
        "messages": [{"role": _case(m["role"]), "content": m["content"]} for m in request["messages"]],
        "max_tokens": request["max_tokens"],
        "temperature": float(request["temperature"]),
        "expect": request.get("expect"),
        "reasoning": None if reasoning is None else {
            "effort": None if reasoning.get("effort") is None else _case(reasoning["effort"]),
            "budget": reasoning.get("budget"),
            "allowance": reasoning.get("allowance", 0),
        },
        "traits": [(reference, {
            "reasoning": t["reasoning"],
            "temperature": t["temperature"],
            "context": t.get("context"),
            "max_output": t.get("max_output"),
        }) for reference, t in traits],
        "cache_marks": list(request.get("cache_marks") or []),
    })


class Reader:
    """Reads one reply (the WIT ``reader``): :meth:`feed` the body as it arrives, then
    :meth:`finish` once. Failures raise :class:`WireFailure`."""

    def __init__(self, instance: "_Instance", http: Mapping[str, Any], url: str, max_reply: int) -> None:
        self._instance = instance
        self._resource: Optional[wc.ResourceAny] = instance.call(
            "[constructor]reader", _lower(dict(http)), url, max_reply, interface=_WIRE_INTERFACE
        )

    def feed(self, chunk: bytes) -> list[str]:
        """The text pieces these bytes completed, in order."""
        return cast("list[str]", self._instance.call(
            "[method]reader.feed", self._resource, bytes(chunk), interface=_WIRE_INTERFACE
        ))

    def finish(self) -> dict[str, Any]:
        """The completion: ``{"text", "usage", "stop"}``."""
        try:
            done = self._instance.call("[method]reader.finish", self._resource, interface=_WIRE_INTERFACE)
            return cast("dict[str, Any]", _lift(done))
        finally:
            self.close()

    def close(self) -> None:
        if self._resource is not None:
            self._resource.drop(self._instance.store)
            self._resource = None


class Exchange:
    """One model call (the WIT ``exchange``): :meth:`next` with the time says what to do
    (``Variant("note" | "wait" | "send" | "ask" | "done" | "failed", ...)``); after a
    ``send``, :meth:`status`, :meth:`body` per chunk while :meth:`wants_more`, then
    :meth:`body_end` (or :meth:`transport_failed`). A call out of turn raises :class:`WireFailure`."""

    def __init__(self, instance: "_Instance", request: Mapping[str, Any], targets: list[Any],
                 settings: Mapping[str, Any]) -> None:
        self._instance = instance
        self._resource: Optional[wc.ResourceAny] = instance.call(
            "[constructor]exchange", _wit_request(request), _lower(targets), _lower(dict(settings)),
            interface=_WIRE_INTERFACE,
        )

    def _method(self, name: str, *args: Any) -> Any:
        return self._instance.call(f"[method]exchange.{name}", self._resource, *args, interface=_WIRE_INTERFACE)

    def next(self, now_ms: int) -> Variant:
        return cast(Variant, _lift(self._method("next", now_ms)))

    def status(self, status: int, headers: list[tuple[str, str]], url: str) -> None:
        self._method("status", status, [(str(k), str(v)) for k, v in headers], url)

    def body(self, chunk: bytes) -> list[str]:
        return cast("list[str]", self._method("body", bytes(chunk)))

    def wants_more(self) -> bool:
        return bool(self._method("wants-more"))

    def body_end(self) -> None:
        self._method("body-end")

    def transport_failed(self, failure: Mapping[str, Any]) -> None:
        self._method("transport-failed", _lower(dict(failure)))

    def close(self) -> None:
        if self._resource is not None:
            self._resource.drop(self._instance.store)
            self._resource = None


class Wire:
    """The component's ``wire`` interface on an instance of its own: use one per call,
    from one thread (each provider call makes its own)."""

    def __init__(self) -> None:
        self._instance = _Instance()

    def _call(self, name: str, *args: Any) -> Any:
        return self._instance.call(name, *args, interface=_WIRE_INTERFACE)

    def build_request(self, call: Mapping[str, Any], request: Mapping[str, Any]) -> dict[str, Any]:
        """The HTTP request for ``request`` sent to ``call``'s model (``{"api", "reference",
        "model", "stream", "server"}``): ``path`` segments, ``query``, ``headers``, ``body``,
        ``stream``, ``output_limit``, ``note``."""
        return cast("dict[str, Any]", _lift(self._call("build-request", _lower(dict(call)), _wit_request(request))))

    def auth_header(self, api: str, key: str) -> tuple[str, str]:
        name, value = self._call("auth-header", api, key)
        return str(name), str(value)

    def status_failure(self, status: int, body: str, retry_after: Optional[str], url: str, hint: str) -> dict[str, Any]:
        """A non-2xx answer as a ``wire-failure``."""
        return cast("dict[str, Any]", _lift(self._call("status-failure", status, body, retry_after, url, hint)))

    def show_request(self, model: str) -> tuple[list[str], str]:
        path, body = self._call("show-request", model)
        return [str(p) for p in path], str(body)

    def parse_show(self, body: str) -> dict[str, Any]:
        return cast("dict[str, Any]", _lift(self._call("parse-show", body)))

    def exchange(self, request: Mapping[str, Any], targets: list[Any], settings: Mapping[str, Any]) -> Exchange:
        """The exchange for one call of ``request`` to ``targets`` in turn (its fallback chain)."""
        return Exchange(self._instance, request, targets, settings)

    def reader(self, http: Mapping[str, Any], url: str, max_reply: int) -> Reader:
        """A reader for the reply to ``http`` (as :meth:`build_request` gave it), from ``url``."""
        return Reader(self._instance, http, url, max_reply)
