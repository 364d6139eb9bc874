"""A small reader of MCAP recordings (https://mcap.dev/spec, version 1) as `limbic record` writes them: one schema per
message type (encoding `flatbuffer`, limbic's binary schema), one channel per topic, messages in chunks compressed
with zstd, lz4 or nothing. Debian has no Python MCAP package; this reads the records limbic writes and skips the
others (indexes, statistics, attachments, metadata), so it needs nothing but the file.

    from limbic.mcap import McapReader
    with McapReader("run.mcap") as bag:
        for m in bag.messages(topics=["r1/odom"]):
            print(m.log_time_ns, m.data.pose.x)

Compressions: "" (none) always; "zstd" with python3-zstandard; "lz4" with python3-lz4 (Debian packages). A chunk
in another compression, or one whose module is missing, raises McapError naming it. A damaged file raises McapError
with the byte offset; messages before the damage have been yielded.
"""
import collections
import json
import os
import struct
import zlib

from . import schema

MAGIC = b"\x89MCAP0\r\n"
OP_HEADER, OP_FOOTER, OP_SCHEMA, OP_CHANNEL, OP_MESSAGE, OP_CHUNK = 0x01, 0x02, 0x03, 0x04, 0x05, 0x06


class McapError(ValueError):
    """A file that is not a readable MCAP recording; the message names the byte offset."""


Schema = collections.namedtuple("Schema", "id name encoding data")
Channel = collections.namedtuple("Channel", "id schema_id topic message_encoding metadata")


_MESSAGE_FIELDS = "topic type log_time_ns publish_time_ns sequence data payload"


class McapMessage(collections.namedtuple("McapMessage", _MESSAGE_FIELDS)):
    """One recorded message: its topic, type name ("Odometry"; the schema name otherwise), times, the data decoded
    (a Record for limbic's flatbuffer channels, the parsed object for json channels, None otherwise) and the bytes."""


def _decompressor(name, offset):
    if name == "":
        return lambda data, size: data
    if name == "zstd":
        try:
            import zstandard
        except ImportError:
            raise McapError(f"chunk at byte {offset} is zstd-compressed: install python3-zstandard") from None
        return lambda data, size: zstandard.ZstdDecompressor().decompress(data, max_output_size=size)
    if name == "lz4":
        try:
            import lz4.frame
        except ImportError:
            raise McapError(f"chunk at byte {offset} is lz4-compressed: install python3-lz4") from None
        return lambda data, size: lz4.frame.decompress(data)
    raise McapError(f"chunk at byte {offset} uses compression '{name}' (supported: none, zstd, lz4)")


class _Cursor:
    def __init__(self, data, base):
        self.data, self.pos, self.base = data, 0, base

    def take(self, n):
        if self.pos + n > len(self.data):
            raise McapError(f"record truncated at byte {self.base + self.pos}")
        out = self.data[self.pos:self.pos + n]
        self.pos += n
        return out

    def u16(self):
        return struct.unpack("<H", self.take(2))[0]

    def u32(self):
        return struct.unpack("<I", self.take(4))[0]

    def u64(self):
        return struct.unpack("<Q", self.take(8))[0]

    def string(self):
        return self.take(self.u32()).decode("utf-8", "replace")

    def string_map(self):
        end = self.pos + self.u32()
        out = {}
        while self.pos < end:
            key = self.string()
            out[key] = self.string()
        return out


def recording_files(path):
    """The files of a recording, as `limbic bag info` and `limbic play` take it: FILE.mcap if it exists, else its split
    parts FILE_000.mcap, FILE_001.mcap, ... in order. McapError if there is neither."""
    if os.path.exists(path):
        return [path]
    stem = path[:-len(".mcap")] if path.endswith(".mcap") else path
    parts = []
    while os.path.exists(f"{stem}_{len(parts):03d}.mcap"):
        parts.append(f"{stem}_{len(parts):03d}.mcap")
    if not parts:
        raise McapError(f"no recording at {path} (nor {stem}_000.mcap)")
    return parts


def read_recording(path, topics=None, decode=True):
    """Every message of a recording, one file or a split series (recording_files), in file order."""
    for file in recording_files(path):
        yield from McapReader(file).messages(topics, decode)


class McapReader:
    def __init__(self, path):
        self.path = path
        try:
            with open(path, "rb") as f:
                self._data = f.read()
        except OSError as e:
            raise McapError(f"{path}: {e.strerror}") from None
        if self._data[:8] != MAGIC:
            raise McapError(f"{path}: not an MCAP file (no magic at byte 0)")
        self.schemas = {}   # id -> Schema
        self.channels = {}  # id -> Channel
        self.profile = None
        self.complete = False  # a Footer was found

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def messages(self, topics=None, decode=True):
        """Every message in file order (each chunk's messages in their order), optionally only those on `topics`."""
        wanted = set(topics) if topics is not None else None
        for rec_offset, op, body in self._records(self._data, 8, top_level=True):
            if op == OP_CHUNK:
                yield from self._chunk(rec_offset, body, wanted, decode)
            elif op == OP_FOOTER:
                self.complete = True
                return
            else:
                m = self._record(rec_offset, op, body, wanted, decode)
                if m is not None:
                    yield m

    def read_all(self, topics=None):
        """{topic: [data, ...]}: every message decoded into plain Python structures."""
        out = collections.defaultdict(list)
        for m in self.messages(topics):
            out[m.topic].append(m.data)
        return dict(out)

    def _records(self, data, start, top_level):
        pos = start
        end = len(data)
        while pos < end:
            if top_level and data[pos:pos + 8] == MAGIC and pos + 8 == end:
                return
            if pos + 9 > end:
                raise McapError(f"{self.path}: record header truncated at byte {pos}")
            op = data[pos]
            length = struct.unpack_from("<Q", data, pos + 1)[0]
            if pos + 9 + length > end:
                raise McapError(f"{self.path}: record (opcode 0x{op:02x}) at byte {pos} runs past the end of the file")
            yield pos, op, data[pos + 9:pos + 9 + length]
            pos += 9 + length

    def _chunk(self, offset, body, wanted, decode):
        c = _Cursor(body, offset + 9)
        c.u64()  # message_start_time
        c.u64()  # message_end_time
        size = c.u64()
        crc = c.u32()
        compression = c.string()
        length = c.u64()
        records = _decompressor(compression, offset)(c.take(length), size)
        if len(records) != size:
            raise McapError(f"{self.path}: chunk at byte {offset} decompresses to {len(records)} bytes, not {size}")
        if crc != 0 and zlib.crc32(records) != crc:
            raise McapError(f"{self.path}: chunk at byte {offset} fails its CRC")
        for rec_offset, op, rec in self._records(records, 0, top_level=False):
            m = self._record(offset, op, rec, wanted, decode)
            if m is not None:
                yield m

    def _record(self, offset, op, body, wanted, decode):
        c = _Cursor(body, offset)
        if op == OP_HEADER:
            self.profile = c.string()
        elif op == OP_SCHEMA:
            s = Schema(c.u16(), c.string(), c.string(), c.take(c.u32()))
            self.schemas[s.id] = s
        elif op == OP_CHANNEL:
            ch = Channel(c.u16(), c.u16(), c.string(), c.string(), c.string_map())
            self.channels[ch.id] = ch
        elif op == OP_MESSAGE:
            channel_id, sequence, log_time, publish_time = c.u16(), c.u32(), c.u64(), c.u64()
            payload = body[c.pos:]
            ch = self.channels.get(channel_id)
            if ch is None:
                raise McapError(f"{self.path}: message at byte {offset} on unknown channel {channel_id}")
            if wanted is not None and ch.topic not in wanted:
                return None
            s = self.schemas.get(ch.schema_id)
            type_name = s.name if s else ""
            data = None
            try:
                if ch.message_encoding == "flatbuffer" and type_name.startswith("limbic.msg."):
                    type_name = type_name[len("limbic.msg."):]
                    if decode:
                        data = schema.decode(payload, type_name)
                elif ch.message_encoding == "json" and decode:
                    data = json.loads(payload)
            except Exception as e:  # a damaged payload (Python's FlatBuffers has no verifier), bad JSON
                raise McapError(f"{self.path}: message on '{ch.topic}' (record at byte {offset}) does not decode as "
                                f"{type_name or ch.message_encoding}: {e}") from None
            return McapMessage(ch.topic, type_name, log_time, publish_time, sequence, data, bytes(payload))
        return None
