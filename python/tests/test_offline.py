#!/usr/bin/env python3
"""The Python client without a bus: its message types agree with the C++ registry and the standard identifiers,
messages encode and decode with their schema names, bad input is refused with a clear error, the client counts what
it drops, and the readers (runs.csv, MCAP) handle good and damaged files."""
import os
import re
import struct
import sys
import tempfile
import time
import unittest

try:
    import flatbuffers  # noqa: F401
    import zmq  # noqa: F401
except ImportError as e:
    print(f"SKIP: {sys.executable} cannot import {e.name}: install python3-zmq python3-flatbuffers "
          "(tools/setup-debian.sh does)")
    sys.exit(77)

import limbic
from limbic import schema
from limbic.mcap import MAGIC, McapError, McapReader

SOURCE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")


class Types(unittest.TestCase):
    def test_every_registered_cpp_type_is_known_with_its_identifier(self):
        # messages/messages.hpp: X(Type, "IDNT") for every root table; the Python side reads the standard
        # file_identifier declarations: they must be the same set with the same identifiers.
        with open(os.path.join(SOURCE, "messages", "messages.hpp"), encoding="utf-8") as f:
            registered = dict(re.findall(r'^\s*X\((\w+), "(\w{4})"\)', f.read(), re.M))
        self.assertGreater(len(registered), 30)
        self.assertEqual(schema.ROOTS, registered)

    def test_generated_identifier_check_agrees_for_every_type(self):
        for type_name, ident in schema.ROOTS.items():
            payload = limbic.encode(type_name, {"header": {"source": "t"}})
            self.assertEqual(payload[4:8], ident.encode())
            cls = schema.generated_class(type_name)
            self.assertTrue(getattr(cls, type_name + "BufferHasIdentifier")(bytearray(payload), 0), type_name)
            other = "Clock" if type_name != "Clock" else "Odometry"
            self.assertFalse(getattr(schema.generated_class(other), other + "BufferHasIdentifier")(
                bytearray(payload), 0))

    def test_every_type_round_trips_with_schema_field_names(self):
        for type_name in schema.ROOTS:
            record = limbic.decode(limbic.encode(type_name, {"header": {"source": "t", "seq": 7}}))
            names = [f["name"] for f in schema.TYPES[type_name]["fields"] if not f["deprecated"]]
            self.assertEqual(list(record), names, type_name)
            self.assertEqual(record.header.source, "t")
            self.assertEqual(record.header.seq, 7)
            self.assertEqual(record.header.tick, -1)  # the schema's default

    def test_values_survive_the_round_trip(self):
        sent = {"header": {"stamp_ns": 5, "seq": 2, "source": "r1/hwio", "incarnation": 9},
                "beams": [{"sensor_id": 3, "angle": 0.5, "d_min": 0.1, "d_max": 2.0, "range": 1.25, "valid": True}]}
        got = limbic.decode(limbic.encode("RangeScan", sent))
        self.assertEqual(got.beams[0].sensor_id, 3)
        self.assertEqual(got.beams[0].range, 1.25)
        self.assertTrue(got.beams[0].valid)
        fault = limbic.decode(limbic.encode("FaultCommand", {"kind": "SensorNoise", "magnitude": 0.2}))
        self.assertEqual(fault.kind, schema.ENUMS["FaultKind"]["SensorNoise"])
        reply = limbic.decode(limbic.encode("ParameterReply", {"ok": True, "values": [{"name": "fusion"}]}))
        self.assertEqual(reply.values[0].name, "fusion")  # a field named like a dict method wins

    def test_the_vector_reader_agrees_with_the_generated_object_api(self):
        # decode() reads vectors of numbers in one go; the generated object API (InitFromBuf) is the reference.
        messages = {
            "GridMap": {"info": {"resolution": 0.35, "width": 3, "height": 2}, "p_o": [0.1, 0.2, 0.3, 0.4, 0.5, 0.6],
                        "p_e": [0.5] * 6, "danger": [0, 1, 2, 3, 4, 255]},
            "Heartbeat": {"service": "r1/planner", "state": "Degraded", "loop_time_buckets": [1, 2, 2 ** 63],
                          "counters": [{"name": "plans", "value": 3.0}],
                          "topics": [{"topic": "r1/path", "messages": 7, "drops_gap": 1}]},
            "LockstepJoin": {"participant": "r1/hwio.sense", "waits_for": ["clock", "r1/ranges_raw"]},
            "RecruitState": {"transmissions": [1, 2, 3, 4, 5, 6], "last_wait_s": float("inf")},
            "Bumpers": {"contact": True, "switches": [0, 7], "speed_before": 0.25},
            # Vectors of structs: their layout (alignment, padding) computed by the reader must match flatc's.
            "RangeScan": {"beams": [{"sensor_id": i, "origin_x": 0.1 * i, "angle": -0.5 * i, "d_min": 0.05,
                                     "d_max": 2.0, "range": 1.0 + i, "valid": i % 2 == 0} for i in range(5)]},
            "GridPatch": {"cells": [{"index": 7, "p_o": 0.25, "p_e": 0.75, "danger": 200},
                                    {"index": 8, "p_o": 1.0, "p_e": 0.0, "danger": 1}], "base_tick": 41},
            "AffectSnapshot": {"stuck_segments": [{"t_start": 1.5, "dt": 0.1, "speed": 0.3, "heading": 3.0}],
                               "emotion_maps": [{"values": [0.5, 0.25]}, {"values": []}]},
            "Path": {"nodes": [{"x": 1.0, "y": 2.0}, {"x": 3.0, "y": -4.0}], "node_costs": [0.5, 0.75]},
            "Humans": {"humans": [{"id": 3, "x": 1.0, "y": 2.0, "radius": 0.3, "vx": 0.1, "vy": -0.1}]},
        }
        for type_name, message in messages.items():
            with self.subTest(type_name):
                message["header"] = {"source": "t", "seq": 1}
                payload = limbic.encode(type_name, message)
                root = schema.generated_class(type_name).GetRootAs(bytearray(payload), 0)
                reference = schema.to_record(schema.object_class(type_name).InitFromObj(root), type_name)
                self.assertEqual(limbic.decode(payload), reference)
        heartbeat = limbic.decode(limbic.encode("Heartbeat", messages["Heartbeat"]))
        self.assertEqual(heartbeat.state, schema.ENUMS["ServiceState"]["Degraded"])
        self.assertEqual(heartbeat.loop_time_buckets, [1, 2, 2 ** 63])
        self.assertEqual(heartbeat.topics[0].drops_gap, 1)

    def test_bad_messages_are_refused_naming_the_field(self):
        cases = [({"gaol": {"x": 1}}, "NavGoal has no field gaol"),
                 ({"goal": {"x": "far"}}, r"NavGoal.goal.x: expected a number"),
                 ({"active": 1}, "NavGoal.active: expected true or false"),
                 ({"instruction_id": 1.5}, "NavGoal.instruction_id: expected an integer"),
                 ([1, 2], "expected an object")]
        for message, error in cases:
            with self.subTest(message=message), self.assertRaisesRegex(limbic.SchemaError, error):
                limbic.encode("NavGoal", message)
        with self.assertRaisesRegex(limbic.SchemaError, "is not a FaultKind"):
            limbic.encode("FaultCommand", {"kind": "Meteor"})
        with self.assertRaisesRegex(limbic.SchemaError, "unknown buffer identifier"):
            limbic.decode(b"\x08\x00\x00\x00ZZZZ\x00\x00\x00\x00")
        with self.assertRaisesRegex(limbic.SchemaError, "not Odometry's 'ODOM'"):
            limbic.decode(limbic.encode("NavGoal", {}), "Odometry")

    def test_the_naming_convention_is_the_cpp_registrys(self):
        # messages/registry.cpp ConventionalType: {"topic", "IDNT"} pairs for global and per-robot topics.
        with open(os.path.join(SOURCE, "messages", "registry.cpp"), encoding="utf-8") as f:
            text = f.read()
        pairs = re.findall(r'\{"([a-z_/]+)", "(\w{4})"\}', text)
        self.assertGreater(len(pairs), 25)
        for topic, ident in pairs:
            full = topic if topic in schema._GLOBAL_TOPICS else "r7/" + topic
            self.assertEqual(limbic.conventional_type(full), schema.BY_IDENTIFIER[ident], full)
        self.assertEqual(len(pairs), len(schema._GLOBAL_TOPICS) + len(schema._ROBOT_TOPICS))

    def test_conventional_types(self):
        self.assertEqual(limbic.conventional_type("r1/goal"), "NavGoal")
        self.assertEqual(limbic.conventional_type("r2/map/patch"), "GridPatch")
        self.assertEqual(limbic.conventional_type("health/r1/planner"), "Heartbeat")
        self.assertEqual(limbic.conventional_type("param/r1/planner/reply"), "ParameterReply")
        self.assertEqual(limbic.conventional_type("clock"), "Clock")
        self.assertIsNone(limbic.conventional_type("bus/odom"))
        self.assertIsNone(limbic.conventional_type("python/custom"))


class Client(unittest.TestCase):
    def test_addresses(self):
        self.assertEqual(limbic.endpoints("ipc:///tmp/x/bus"), ("ipc:///tmp/x/bus.in", "ipc:///tmp/x/bus.out"))
        self.assertEqual(limbic.endpoints("tcp://robot:7400"), ("tcp://robot:7400", "tcp://robot:7401"))
        self.assertEqual(limbic.endpoints("tcp://[::1]:7400"), ("tcp://[::1]:7400", "tcp://[::1]:7401"))
        for bad, error in [("robot:7400", "no scheme"), ("tcp://robot", "needs a port"), ("tcp://h:99999", "bad port"),
                           ("tcp://::1:7400", "brackets"), ("inproc://x", "inside one C\\+\\+ process"),
                           ("ipc://", "empty")]:
            with self.subTest(address=bad), self.assertRaisesRegex(limbic.BusError, error):
                limbic.endpoints(bad)

    def test_what_the_client_drops_is_counted_by_reason(self):
        with tempfile.TemporaryDirectory() as work:
            bus = limbic.Bus(f"ipc://{work}/bus", timeout=None)  # no broker: frames are fed by hand
            try:
                sub = bus._subscribe("r1/goal")
                good = lambda seq, inc=1: limbic.encode(  # noqa: E731
                    "NavGoal", {"header": {"source": "m", "seq": seq, "incarnation": inc}})
                frames = [[b"r1/goal", good(1)], [b"r1/goal", good(1)], [b"r1/goal", good(4)],
                          [b"r1/goal", limbic.encode("Odometry", {"header": {"source": "m"}})],
                          [b"r1/goal", b"\x08\x00\x00\x00ZZZZ\x00\x00\x00\x00"],
                          [b"r1/goal", b"\xff\xff\xff\x7fGOAL"], [b"r1/goal", good(5), b"extra"],
                          [b"r1/goal", good(1, inc=2)]]
                for f in frames:
                    bus._receive(f)
                got = []
                while sub.queue:
                    topic, payload = sub.queue.popleft()
                    m = bus._decode(topic, payload, True)
                    if m:
                        got.append((m.header.incarnation, m.header.seq))
                self.assertEqual(got, [(1, 1), (1, 4), (2, 1)])  # a restarted source starts again
                self.assertEqual(dict(bus.drops["r1/goal"]),
                                 {"duplicates": 1, "gap": 2, "wrong_type": 2, "malformed": 2})
            finally:
                bus.close()

    def test_published_topics_get_high_water_reports(self):
        with tempfile.TemporaryDirectory() as work:
            bus = limbic.Bus(f"ipc://{work}/bus", name="py", timeout=None)  # no broker: the PUB drops, fine
            try:
                self.assertEqual(bus.high_water_reports(), [])  # nothing published yet
                for x in (1.0, 2.0):
                    bus.publish("r1/goal", {"active": True, "goal": {"x": x, "y": 0.0}})
                bus.send_raw("r1/odom", limbic.encode("Odometry", {"header": {"source": "other", "seq": 9}}))
                reports = bus.high_water_reports()
                self.assertEqual([t for t, _ in reports], ["bus/hwm/r1/goal"])  # raw sends are not numbered by it
                report = limbic.decode(reports[0][1])
                self.assertEqual((report.topic, report.last_seq), ("r1/goal", 2))
                self.assertEqual((report.header.source, report.header.incarnation), ("py", bus.incarnation))
                self.assertEqual(limbic.decode(bus.high_water_reports()[0][1]).header.seq, 2)  # reports numbered too
            finally:
                bus.close()

    def test_an_unread_subscription_keeps_the_newest_messages(self):
        with tempfile.TemporaryDirectory() as work:
            bus = limbic.Bus(f"ipc://{work}/bus", timeout=None)
            try:
                bus.QUEUE_LIMIT = 2
                sub = bus.subscribe("r1/odom", timeout=0.1)
                for seq in (1, 2, 3):
                    bus._receive([b"r1/odom", limbic.encode("Odometry", {"header": {"source": "h", "seq": seq}})])
                self.assertEqual([m.header.seq for m in (next(sub), next(sub))], [2, 3])
                with self.assertRaisesRegex(limbic.Timeout, "no message on 'r1/odom' within 0.1 s"):
                    next(sub)
                sub.close()
                with self.assertRaises(StopIteration):
                    next(sub)
            finally:
                bus.close()

    def test_directory_entries_are_parsed_as_the_broker_writes_them(self):
        from limbic.bus import parse_directory_entry
        key = "@nCLl.IhcLKkq(+@.?S}XB#Y1>a:P=.Ggo4}{vz{"
        self.assertEqual(parse_directory_entry(b"ipc:///tmp/b.d/12-0\0r1/scan"), ("r1/scan", "ipc:///tmp/b.d/12-0", ""))
        self.assertEqual(parse_directory_entry(b"tcp://10.0.0.2:40001\0r1/odom\0" + key.encode()),
                         ("r1/odom", "tcp://10.0.0.2:40001", key))
        for bad in [b"ipc:///x", b"\0r1/scan", b"ipc:///x\0", b"udp://x\0t", b"ipc://\0t", b"tcp://*:5\0t",
                    b"ipc:///x\0bus/hwm/t", b"ipc:///x\0t\x01", b"ipc:///x\0t\0short", b"ipc:///x\0t\0k\0k",
                    b"ipc:///" + b"x" * 300 + b"\0t", b"ipc:///x\0\xff\xfe"]:
            with self.subTest(entry=bad):
                self.assertIsNone(parse_directory_entry(bad))

    def test_direct_links_connect_once_per_endpoint_and_subscribe_once_per_topic(self):
        from limbic.bus import DirectLinks
        links = DirectLinks()
        self.assertEqual(links.add("a", "ipc:///e1"), (True, True, False, False, False))
        self.assertEqual(links.add("a", "ipc:///e1"), (False, False, False, False, False))  # repeated entry
        self.assertEqual(links.add("b", "ipc:///e1"), (False, True, False, False, False))
        self.assertEqual(links.add("a", "ipc:///e2"), (True, False, False, False, False))  # a second publisher of a
        self.assertEqual(links.remove("a", "ipc:///e1"), (False, False, False, False, False))
        self.assertEqual(links.remove("b", "ipc:///e1"), (False, False, True, True, False))
        self.assertEqual(links.remove("a", "ipc:///e2"), (False, False, True, True, False))
        self.assertEqual(links.remove("a", "ipc:///e2"), (False, False, False, False, False))  # unknown: nothing
        self.assertEqual(links.endpoints(), 0)

    def test_direct_links_let_go_of_an_endpoint_only_when_taken_and_take_it_up_again_without_a_second_connection(self):
        from limbic.bus import DirectLinks
        links = DirectLinks()
        links.add("a", "ipc:///e1")
        self.assertTrue(links.remove("a", "ipc:///e1").disconnect)
        self.assertEqual(links.lingering(), 1)
        self.assertEqual(links.add("b", "ipc:///e1"), (False, True, False, False, False))  # still connected
        self.assertEqual(links.lingering(), 0)
        links.remove("b", "ipc:///e1")
        self.assertEqual(links.take_lingering(), ["ipc:///e1"])
        self.assertEqual(links.take_lingering(), [])
        self.assertTrue(links.add("a", "ipc:///e1").connect)  # let go of: connect afresh
        keyed = DirectLinks()
        keyed.add("a", "tcp://h:1", "K1")
        keyed.remove("a", "tcp://h:1")
        # Another key where the old connection lingers: remade at the safe point, not at once.
        self.assertEqual(keyed.add("a", "tcp://h:1", "K2"), (False, True, False, False, True))
        self.assertEqual(keyed.take_lingering(), ["tcp://h:1"])
        self.assertEqual(keyed.take_reconnects(), [("tcp://h:1", "K2")])
        self.assertEqual(keyed.take_reconnects(), [])

    def test_direct_links_keep_entries_per_key_so_a_gone_publishers_withdrawal_leaves_the_new_one(self):
        # A publisher restarted at the same endpoint with a new key, announced before the broker noticed the old
        # one gone (its next ping): the old key's withdrawal must not take the endpoint from the new publisher.
        from limbic.bus import DirectLinks
        links = DirectLinks()
        self.assertEqual(links.add("a", "tcp://h:1", "K1"), (True, True, False, False, False))
        self.assertEqual(links.add("a", "tcp://h:1", "K2"), (False, False, False, False, True))
        self.assertEqual(links.remove("a", "tcp://h:1", "K1"), (False, False, False, False, False))
        self.assertEqual(links.endpoints(), 1)
        self.assertEqual(links.take_lingering(), ["tcp://h:1"])  # the old connection, let go of at the safe point
        self.assertEqual(links.take_reconnects(), [("tcp://h:1", "K2")])
        self.assertEqual(links.add("b", "tcp://h:1", "K2"), (False, True, False, False, False))  # connected with K2
        self.assertEqual(links.remove("a", "tcp://h:1", "K2").unsubscribe, True)
        self.assertEqual(links.remove("b", "tcp://h:1", "K2"), (False, False, True, True, False))
        self.assertEqual(links.take_lingering(), ["tcp://h:1"])
        self.assertEqual(links.take_reconnects(), [])

    def test_the_client_follows_the_directory_to_a_direct_publisher(self):
        # No broker: the directory entries are fed by hand, the publisher is a bare XPUB like a direct node's.
        import zmq
        with tempfile.TemporaryDirectory() as work:
            ctx = zmq.Context()
            publisher = ctx.socket(zmq.XPUB)
            publisher.setsockopt(zmq.LINGER, 0)
            endpoint = f"ipc://{work}/bus.d/1-0"
            os.makedirs(f"{work}/bus.d")
            publisher.bind(endpoint)
            bus = limbic.Bus(f"ipc://{work}/bus", timeout=None)
            try:
                sub = bus.subscribe("r1/odom", timeout=0.2)
                bus._receive([b"\x02" + endpoint.encode() + b"\0r1/other"])  # not subscribed: ignored
                bus._receive([b"\x02" + endpoint.encode() + b"\0r1/odom"])
                bus._receive([b"\x02ipc://" + b"\0r1/odom"])                   # malformed: counted
                bus._receive([b"\x02" + endpoint.encode() + b"\0r1/odom\0" + b"k" * 40])  # a key, no CURVE
                self.assertEqual(bus.directory_rejected, 2)
                subscriptions = set()
                deadline = time.monotonic() + 5
                while len(subscriptions) < 2 and time.monotonic() < deadline:
                    if publisher.poll(100):
                        subscriptions.add(publisher.recv())
                self.assertEqual(subscriptions, {b"\x01r1/odom", b"\x01bus/hwm/r1/odom"})
                odom = lambda seq: limbic.encode("Odometry", {"header": {"source": "h", "seq": seq}})  # noqa: E731
                publisher.send_multipart([b"r1/odom", odom(1)])
                publisher.send_multipart([b"r1/other", odom(2)])  # not subscribed at the publisher either
                self.assertEqual(next(sub).header.seq, 1)
                # Withdrawn: the SUB unsubscribes and lets go of the endpoint; nothing more arrives.
                bus._receive([b"\x03" + endpoint.encode() + b"\0r1/odom"])
                deadline = time.monotonic() + 5
                while b"\x00r1/odom" not in subscriptions and time.monotonic() < deadline:
                    if publisher.poll(100):
                        subscriptions.add(publisher.recv())
                self.assertIn(b"\x00r1/odom", subscriptions)
                publisher.send_multipart([b"r1/odom", odom(2)])
                with self.assertRaises(limbic.Timeout):
                    next(sub)
            finally:
                bus.close()
                publisher.close(0)
                ctx.term()

    def test_curve_key_files(self):
        from limbic.bus import load_curve_keys
        with tempfile.TemporaryDirectory() as work:
            path = os.path.join(work, "ws.client.yaml")
            with open(path, "w") as f:  # as `limbic keys generate` writes it; Z85 keys may hold '#' and ':'
                f.write('# --curve-keys for the services using the key \'ws\'\n'
                        'server_public: "oi@wPZd{gtmNyE<tSTtWzlZ%.P:L]dV!@f!LhMD&"\n'
                        'client_public: "@nCLl.IhcLKkq(+@.?S}XB#Y1>a:P=.Ggo4}{vz{"\n'
                        'client_secret: "KTed0}hL=y>.2kCmAussY3OoueVeF$<zvYe4g0gt"\n')
            keys = load_curve_keys(path)
            self.assertEqual(keys["client_public"], "@nCLl.IhcLKkq(+@.?S}XB#Y1>a:P=.Ggo4}{vz{")
            self.assertEqual(keys["server_public"], "oi@wPZd{gtmNyE<tSTtWzlZ%.P:L]dV!@f!LhMD&")
            with open(path, "w") as f:
                f.write('server_public: "short"\nclient_public: "x"\n')
            with self.assertRaisesRegex(limbic.BusError, "missing client_secret"):
                load_curve_keys(path)
            with open(path, "a") as f:
                f.write('client_secret: "y"\n')
            with self.assertRaisesRegex(limbic.BusError, "not a 40-character Z85 key"):
                load_curve_keys(path)
            with self.assertRaisesRegex(limbic.BusError, "No such file"):
                load_curve_keys(os.path.join(work, "none.yaml"))

    def test_no_address_is_a_clear_error(self):
        saved = os.environ.pop("LIMBIC_BUS", None)
        try:
            with self.assertRaisesRegex(limbic.BusError, "no bus address"):
                limbic.Bus()
        finally:
            if saved is not None:
                os.environ["LIMBIC_BUS"] = saved


def record(op, body):
    return struct.pack("<BQ", op, len(body)) + body


def string(s):
    b = s.encode()
    return struct.pack("<I", len(b)) + b


def mcap_file(compression="", crc_ok=True, truncate=0, compression_name=None, damage_payload=False):
    """A small MCAP file as the spec lays it out: a schema, a channel and two Odometry messages in one chunk."""
    odom = [limbic.encode("Odometry", {"header": {"source": "r1/hwio", "seq": i + 1}, "pose": {"x": 1.0 + i, "y": 2.0,
                                                                                               "theta": 0.0}, "v": 0.5})
            for i in range(2)]
    if damage_payload:  # the root offset points past the end; the CRC still matches (written after)
        odom[1] = b"\xff\xff\x00\x00ODOM" + odom[1][8:]
    inner = record(0x03, struct.pack("<H", 1) + string("limbic.msg.Odometry") + string("flatbuffer") +
                   struct.pack("<I", 3) + b"bfb")
    inner += record(0x04, struct.pack("<HH", 1, 1) + string("r1/odom") + string("flatbuffer") + struct.pack("<I", 0))
    for i, payload in enumerate(odom):
        inner += record(0x05, struct.pack("<HIQQ", 1, i, 100 + i, 100 + i) + payload)
    import zlib
    crc = zlib.crc32(inner) if crc_ok else 12345
    stored = inner
    if compression == "zstd":
        import zstandard
        stored = zstandard.ZstdCompressor().compress(inner)
    elif compression == "lz4":
        import lz4.frame
        stored = lz4.frame.compress(inner)
    name = compression if compression_name is None else compression_name
    chunk = struct.pack("<QQQI", 100, 101, len(inner), crc) + string(name)
    chunk += struct.pack("<Q", len(stored))
    chunk += stored
    data = MAGIC + record(0x01, string("") + string("limbic")) + record(0x06, chunk)
    data += record(0x0F, struct.pack("<I", 0))
    data += record(0x02, struct.pack("<QQI", 0, 0, 0)) + MAGIC
    return data[:len(data) - truncate] if truncate else data


class Mcap(unittest.TestCase):
    def read(self, data):
        with tempfile.NamedTemporaryFile(suffix=".mcap") as f:
            f.write(data)
            f.flush()
            bag = McapReader(f.name)
            return bag, list(bag.messages())

    def test_chunks_in_every_supported_compression(self):
        available = [""]
        for module, name in (("zstandard", "zstd"), ("lz4.frame", "lz4")):
            try:
                __import__(module)
                available.append(name)
            except ImportError:
                pass
        for compression in available:
            with self.subTest(compression=compression):
                bag, messages = self.read(mcap_file(compression))
                self.assertTrue(bag.complete)
                self.assertEqual([m.data.pose.x for m in messages], [1.0, 2.0])
                self.assertEqual([m.log_time_ns for m in messages], [100, 101])
                self.assertEqual(messages[0].type, "Odometry")

    def test_damage_is_an_error_naming_the_byte_offset(self):
        with self.assertRaisesRegex(McapError, "runs past the end of the file"):
            self.read(mcap_file(truncate=40))
        with self.assertRaisesRegex(McapError, "fails its CRC"):
            self.read(mcap_file(crc_ok=False))
        with self.assertRaisesRegex(McapError, "not an MCAP file"):
            self.read(b"hello world, not a recording")
        with self.assertRaisesRegex(McapError, "No such file"):
            McapReader("/nonexistent/run.mcap")
        with self.assertRaisesRegex(McapError, "message on 'r1/odom' .* does not decode as Odometry"):
            self.read(mcap_file(damage_payload=True))
        with self.assertRaisesRegex(McapError, r"uses compression 'brotli' \(supported: none, zstd, lz4\)"):
            self.read(mcap_file(compression_name="brotli"))


class Runs(unittest.TestCase):
    def test_rows_become_typed_dicts(self):
        header = ("run_id,experiment,config,set,env,repeat,seed,sweep,sweep_value,iteration,completion_time_s,success,"
                  "collisions,collisions_per_min,mean_velocity,exec_time_ratio,coverage,distance_travelled,"
                  "contact_cycles,status,error")
        with tempfile.TemporaryDirectory() as work:
            path = os.path.join(work, "runs.csv")
            with open(path, "w") as f:
                f.write(header + "\n")
                f.write("a-1,exp,constant,C,7,2,18446744073709551557,W_v4=0.25,0.25,1,124.4,1,3,1.44,0.3,0.017,0.42,"
                        "40.5,11,ok,\n")
            rows = limbic.read_runs_csv(path)
            self.assertEqual(len(rows), 1)
            r = rows[0]
            self.assertIs(r["success"], True)
            self.assertEqual(r["seed"], 18446744073709551557)
            self.assertEqual(r["completion_time_s"], 124.4)
            self.assertEqual(r["set"], "C")
            self.assertIsNone(r["error"])
            with open(path, "a") as f:
                f.write("a-2,exp\n")
            with self.assertRaisesRegex(ValueError, r"runs.csv:3: 2 cells, the header has 21"):
                limbic.read_runs_csv(path)
        with self.assertRaises(OSError):
            limbic.read_runs_csv("/nonexistent/runs.csv")


if __name__ == "__main__":
    unittest.main()
