"""limbic's message types for Python: the code `flatc --python --gen-object-api` generated from messages/*.fbs at build
time (package limbic.msg), plus the facts python/gen_schema.py read from the same files (limbic/_schema.py).

Decoded messages are Records: dicts with attribute access, keyed by the schema's own field names (snake_case, as in
the .fbs files, `limbic echo` and docs/protocol.md), holding only plain Python values (str, int, float, bool, list,
Record), so they print, compare and serialise to JSON as they are.
"""
import importlib
import json
import struct

from . import _schema

# 32 MiB: the bus's cap on a payload (messages::kMaxPayloadBytes); larger ones are dropped as `oversize`.
MAX_PAYLOAD_BYTES = 32 << 20

ROOTS = dict(_schema.ROOTS)  # type name -> 4-character identifier (the standard file_identifier)
BY_IDENTIFIER = {ident: name for name, ident in ROOTS.items()}
TYPES = _schema.TYPES
ENUMS = _schema.ENUMS


class SchemaError(ValueError):
    """A message, type or field that limbic's schemas do not have."""


class Record(dict):
    """A decoded message or part of one: a dict whose keys are also attributes (msg.pose.x == msg["pose"]["x"])."""

    def __getattribute__(self, name):
        # A field wins over a dict method of the same name (ParameterReply.values, EmotionMapValues.values).
        if dict.__contains__(self, name):
            return dict.__getitem__(self, name)
        return dict.__getattribute__(self, name)

    def __getattr__(self, name):
        raise AttributeError(f"no field '{name}' (fields: {', '.join(self)})")

    def __setattr__(self, name, value):
        self[name] = value

    def to_json(self, **kwargs):
        return json.dumps(self, **kwargs)


def _camel(name):
    # flatc's Python object API names attributes in lowerCamelCase: instruction_id -> instructionId, t_1 -> t1.
    parts = name.split("_")
    return parts[0] + "".join(p[:1].upper() + p[1:] for p in parts[1:])


def _module(type_name):
    return importlib.import_module(f"limbic.msg.{type_name}")


def generated_class(type_name):
    """The generated accessor class (e.g. limbic.msg.NavGoal.NavGoal)."""
    return getattr(_module(type_name), type_name)


def object_class(type_name):
    """The generated object-API class (e.g. limbic.msg.NavGoal.NavGoalT)."""
    return getattr(_module(type_name), type_name + "T")


def type_name_of(name):
    """'NavGoal', 'limbic.msg.NavGoal' or the identifier 'GOAL' -> 'NavGoal'."""
    if name in ROOTS:
        return name
    short = name[len("limbic.msg."):] if name.startswith("limbic.msg.") else name
    if short in ROOTS:
        return short
    if name in BY_IDENTIFIER:
        return BY_IDENTIFIER[name]
    raise SchemaError(f"unknown message type '{name}' (known: {', '.join(sorted(ROOTS))})")


def identifier_of(payload):
    """Bytes 4..8 of a FlatBuffer: its file identifier, or '' for a buffer too short to have one."""
    if len(payload) < 8:
        return ""
    return bytes(payload[4:8]).decode("latin-1")


def _plain(value, type_name, vector):
    if vector:
        if value is None:
            return []
        if hasattr(value, "tolist"):  # numpy, when installed
            value = value.tolist()
        return [_plain(v, type_name, False) for v in value]
    if type_name == "string":
        return None if value is None else (value.decode("utf-8", "replace") if isinstance(value, bytes) else value)
    if type_name in TYPES:
        return None if value is None else to_record(value, type_name)
    return value


def to_record(obj, type_name):
    """An object-API instance of `type_name` as a Record keyed by schema field names."""
    out = Record()
    for f in TYPES[type_name]["fields"]:
        if f["deprecated"]:
            continue
        out[f["name"]] = _plain(getattr(obj, _camel(f["name"])), f["type"], f["vector"])
    return out


# struct formats of the scalar types, for reading a whole vector at once (FlatBuffers is little-endian).
_VECTOR_FORMATS = {"bool": "?", "byte": "b", "int8": "b", "ubyte": "B", "uint8": "B", "short": "h", "int16": "h",
                   "ushort": "H", "uint16": "H", "int": "i", "int32": "i", "uint": "I", "uint32": "I", "long": "q",
                   "int64": "q", "ulong": "Q", "uint64": "Q", "float": "f", "float32": "f", "double": "d",
                   "float64": "d"}


def _upper_camel(name):
    # flatc's Python accessor methods: instruction_id -> InstructionId(), p_o -> PO(), t_1 -> T1().
    c = _camel(name)
    return c[:1].upper() + c[1:]


def _text(value):
    return None if value is None else value.decode("utf-8", "replace")


def _struct_layout(type_name):
    """(struct format, size, alignment, field names) of a struct of scalars, laid out as FlatBuffers does: each field
    at a multiple of its size, the whole padded to its largest field. None for a struct with nested structs."""
    fmt, offset, align, names = "<", 0, 1, []
    for f in TYPES[type_name]["fields"]:
        code = _VECTOR_FORMATS.get(f["type"])
        if code is None:
            return None
        size = struct.calcsize("<" + code)
        pad = -offset % size
        fmt += "x" * pad + code
        offset += pad + size
        align = max(align, size)
        names.append(f["name"])
    pad = -offset % align
    return fmt + "x" * pad, offset + pad, align, names


_PLANS = {}


def _plan(type_name):
    # Per type, once: how each field is read (the names of the generated methods, the vector formats).
    plan = _PLANS.get(type_name)
    if plan is None:
        plan = []
        for slot, f in enumerate(TYPES[type_name]["fields"]):  # a field's id is its position (no `id:` used)
            if f["deprecated"]:
                continue
            kind = f["type"]
            layout = _struct_layout(kind) if f["vector"] and TYPES.get(kind, {}).get("kind") == "struct" else None
            plan.append((f["name"], _upper_camel(f["name"]), kind, f["vector"], 4 + 2 * slot,
                         _VECTOR_FORMATS.get(kind) if f["vector"] else None, layout))
        _PLANS[type_name] = plan
    return plan


def _read(obj, type_name):
    """A Record from a generated accessor object (table or struct) of `type_name`, through the generated methods.
    Vectors of scalars and of structs of scalars are read with struct.unpack_from where the generated per-element
    accessors (and the object API without numpy) take ~30x longer on maps, patches and emotion layers;
    python_client_test checks both give the same."""
    out = Record()
    for name, method, kind, vector, vtable_slot, fmt, layout in _plan(type_name):
        if not vector:
            value = getattr(obj, method)()
            if kind == "string":
                value = _text(value)
            elif kind in TYPES and value is not None:
                value = _read(value, kind)
            out[name] = value
            continue
        tab = obj._tab
        offset = tab.Offset(vtable_slot)
        if offset == 0:
            out[name] = []
        elif fmt is not None:
            n = tab.VectorLen(offset)
            out[name] = list(struct.unpack_from(f"<{n}{fmt}", tab.Bytes, tab.Vector(offset)))
        elif layout is not None:
            element, size, _, names = layout
            start, n = tab.Vector(offset), tab.VectorLen(offset)
            out[name] = [Record(zip(names, values))
                         for values in struct.iter_unpack(element, tab.Bytes[start:start + n * size])]
        else:
            get = getattr(obj, method)
            n = getattr(obj, method + "Length")()
            if kind == "string":
                out[name] = [_text(get(i)) for i in range(n)]
            else:
                out[name] = [_read(get(i), kind) for i in range(n)]
    return out


def _root(payload, type_name):
    cls = generated_class(type_name)
    buf = payload if isinstance(payload, bytearray) else bytearray(payload)
    if not getattr(cls, type_name + "BufferHasIdentifier")(buf, 0):  # the generated check agrees
        raise SchemaError(f"payload is not a {type_name}")
    return cls.GetRootAs(buf, 0)


def decode(payload, type_name=None):
    """Decodes a payload (bytes) to a Record. The type comes from its identifier unless given; a payload whose
    identifier is another type's raises SchemaError. Python has no FlatBuffers verifier: decode what the broker has
    verified (everything it forwards), and expect exceptions from a damaged buffer."""
    ident = identifier_of(payload)
    found = BY_IDENTIFIER.get(ident)
    if type_name is not None:
        type_name = type_name_of(type_name)
        if found != type_name:
            raise SchemaError(f"payload has identifier '{ident}', not {type_name}'s '{ROOTS[type_name]}'")
    elif found is None:
        raise SchemaError(f"unknown buffer identifier {ident!r}")
    else:
        type_name = found
    return _read(_root(payload, type_name), type_name)


def decode_header(payload, type_name):
    """Only the header of a payload of `type_name` (every root table's field 0), as a Record, or None."""
    header = _root(payload, type_name).Header()
    return None if header is None else _read(header, "Header")


def _enum_value(enum_name, value, where):
    if isinstance(value, str):
        try:
            return ENUMS[enum_name][value]
        except KeyError:
            raise SchemaError(f"{where}: '{value}' is not a {enum_name} ({', '.join(ENUMS[enum_name])})") from None
    if isinstance(value, bool) or not isinstance(value, int):
        raise SchemaError(f"{where}: expected a {enum_name} name or number, got {value!r}")
    return value


def _from_plain(value, type_name, vector, where):
    if vector:
        if not isinstance(value, (list, tuple)):
            raise SchemaError(f"{where}: expected a list, got {type(value).__name__}")
        return [_from_plain(v, type_name, False, f"{where}[{i}]") for i, v in enumerate(value)]
    if type_name in TYPES:
        return from_dict(type_name, value, where)
    if type_name in ENUMS:
        return _enum_value(type_name, value, where)
    if type_name == "string":
        if not isinstance(value, str):
            raise SchemaError(f"{where}: expected a string, got {value!r}")
        return value
    if type_name == "bool":
        if not isinstance(value, bool):
            raise SchemaError(f"{where}: expected true or false, got {value!r}")
        return value
    if type_name in ("float", "double", "float32", "float64"):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise SchemaError(f"{where}: expected a number, got {value!r}")
        return float(value)
    if isinstance(value, bool) or not isinstance(value, int):
        raise SchemaError(f"{where}: expected an integer, got {value!r}")
    return value


def from_dict(type_name, value, where=None):
    """An object-API instance of `type_name` (ready to Pack) from a dict keyed by schema field names (or from a
    Record, or an object-API instance, returned as it is). Unknown fields are an error naming them."""
    type_name = type_name if type_name in TYPES else type_name_of(type_name)
    where = where or type_name
    cls = object_class(type_name)
    if isinstance(value, cls):
        return value
    if not isinstance(value, dict):
        raise SchemaError(f"{where}: expected an object with fields of {type_name}, got {type(value).__name__}")
    fields = {f["name"]: f for f in TYPES[type_name]["fields"] if not f["deprecated"]}
    unknown = sorted(set(value) - set(fields))
    if unknown:
        raise SchemaError(f"{where}: {type_name} has no field {', '.join(unknown)} (fields: {', '.join(fields)})")
    obj = cls()
    for name, v in value.items():
        if v is None:
            continue
        setattr(obj, _camel(name), _from_plain(v, fields[name]["type"], fields[name]["vector"], f"{where}.{name}"))
    return obj


def encode(type_name, message):
    """A finished FlatBuffer (bytes) of `type_name` from a dict / Record / object-API instance. The buffer carries the
    type's identifier, as the bus requires (an unfinished or unidentified buffer is dropped as wrong_type)."""
    import flatbuffers

    type_name = type_name_of(type_name)
    obj = from_dict(type_name, message)
    builder = flatbuffers.Builder(1024)
    builder.Finish(obj.Pack(builder), file_identifier=ROOTS[type_name].encode("ascii"))
    return bytes(builder.Output())


# The type a topic carries by limbic's naming convention (messages/registry.cpp ConventionalType): the broker holds
# these topics to these types and drops anything else as `wrong_type`. None for a topic outside the convention.
_GLOBAL_TOPICS = {"clock": "Clock", "faults": "FaultCommand", "world": "WorldGeometry", "humans": "Humans",
                  "bus/stats": "BusStats", "lockstep/join": "LockstepJoin", "lockstep/ack": "LockstepAck",
                  "lockstep/stop": "Clock"}
_ROBOT_TOPICS = {"ranges_raw": "RawRanges", "scan": "RangeScan", "bumpers_raw": "Bumpers",
                 "collision": "CollisionEvent", "odom": "Odometry", "odom_raw": "Odometry", "wheels": "WheelCommand",
                 "cmd_vel": "VelocityCommand",
                 "map": "GridMap", "map/patch": "GridPatch", "map/stats": "MapStats", "obstacles": "ObstacleSet",
                 "goal": "NavGoal", "path": "Path", "control/direction": "DirectionalState",
                 "control/velocity": "VelocityState", "params": "ControlParams", "affect": "AffectState",
                 "emotion_layer": "EmotionLayer", "affect/snapshot": "AffectSnapshot", "metrics": "RunMetrics",
                 "mission": "MissionStatus", "truth": "GroundTruth", "explore/task": "ExploreTask",
                 "explore/report": "ExploreReport", "explore/call": "ExploreCall", "explore/bid": "ExploreBid"}


def conventional_type(topic):
    if topic in _GLOBAL_TOPICS:
        return _GLOBAL_TOPICS[topic]
    if topic.startswith("health/"):
        return "Heartbeat"
    if topic.startswith("param/"):
        return "ParameterReply" if topic.endswith("/reply") else "ParameterRequest"
    first, slash, rest = topic.partition("/")
    if not slash or not first or first in ("bus", "lockstep"):
        return None
    return _ROBOT_TOPICS.get(rest)
