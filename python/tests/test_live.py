#!/usr/bin/env python3
"""The Python client against a running robot (python/tests/run_live.sh starts one without its mission on a private
bus and sets LIMBIC_BUS): decoded scan, odometry and affect; a goal the robot follows; a live parameter that takes
effect; the unhappy paths (no broker, a topic without a type, a malformed payload dropped and counted); a recording
made by `limbic record` read back."""
import math
import os
import subprocess
import sys
import tempfile
import time
import unittest

import limbic
from limbic.mcap import McapReader

BUS = os.environ.get("LIMBIC_BUS", "")
BIN = os.environ.get("LIMBIC_BIN_DIR", "")


def finite(*values):
    return all(math.isfinite(v) for v in values)


class LiveStack(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if not BUS:
            raise unittest.SkipTest("LIMBIC_BUS is not set (run through run_live.sh)")
        # The stack starts with this test: wait until the broker answers and the robot's scan flows.
        deadline = time.monotonic() + 60
        while True:
            try:
                cls.bus = limbic.Bus(BUS, name="python-test", timeout=2)
                cls.bus.receive("r1/scan", timeout=5)
                return
            except limbic.BusError:
                if hasattr(cls, "bus"):
                    cls.bus.close()
                    del cls.bus
                if time.monotonic() > deadline:
                    raise

    @classmethod
    def tearDownClass(cls):
        cls.bus.close()

    def test_scan_odometry_and_affect_decode_with_named_fields(self):
        scan = self.bus.receive("r1/scan", timeout=5)
        self.assertEqual(scan.type, "RangeScan")
        self.assertEqual(scan.header.source, "r1/hwio")
        self.assertGreater(scan.header.seq, 0)
        self.assertGreater(len(scan.data.beams), 0)
        for beam in scan.data.beams:
            self.assertLessEqual(beam.d_min, beam.range)
            self.assertLessEqual(beam.range, beam.d_max + 1e-9)
            self.assertTrue(finite(beam.angle, beam.origin_x, beam.origin_y))

        odoms = list(self.bus.subscribe("r1/odom", count=3, timeout=5))
        self.assertEqual([m.type for m in odoms], ["Odometry"] * 3)
        seqs = [m.header.seq for m in odoms]
        self.assertEqual(seqs, sorted(seqs))
        for m in odoms:
            self.assertTrue(finite(m.data.pose.x, m.data.pose.y, m.data.pose.theta, m.data.v, m.data.omega))

        affect = self.bus.receive("r1/affect", timeout=5).data
        # The array lengths of messages/affect/affect_state.fbs: 9 stimuli, 7 emotions, 2 moods, 6 drives.
        self.assertEqual(len(affect.stimuli_norm), 9)
        self.assertEqual(len(affect.emotions_combined), 7)
        self.assertEqual(len(affect.moods), 2)
        self.assertEqual(len(affect.drives), 6)
        self.assertEqual(affect.model, "affective")
        for e in affect.emotions_combined:
            self.assertTrue(0.0 <= e <= 1.0, affect.emotions_combined)
        for d in affect.drives:
            self.assertTrue(0.0 <= d <= 1.0, affect)
        self.assertIn('"emotions_combined"', affect.to_json())  # plain structures: JSON as they are

    def test_the_minimal_client_of_the_protocol_document_works(self):
        # docs/protocol.md §11: a client from pyzmq and the generated classes alone, run as written (bus address
        # aside). Its goal must pass the broker's checks: the broker latches it, and a new subscription gets it.
        doc = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "docs", "protocol.md")
        with open(doc, encoding="utf-8") as f:
            text = f.read()
        section = text[text.index("## 11."):]
        code = section[section.index("```python\n") + len("```python\n"):]
        code = code[:code.index("```")]
        self.assertIn("ipc:///tmp/limbic/demo-bus", code)
        path = BUS[len("ipc://"):]
        code = code.replace("ipc:///tmp/limbic/demo-bus", "ipc://" + path)
        subprocess.run([sys.executable, "-c", code], check=True, timeout=20)
        # Each receive is a new subscription, which the broker answers with the latched value. The client's process
        # has ended, but the broker may not have taken its goal yet (a loaded machine): until it has, the latched
        # value is an earlier test's ("python-test"). So ask again, briefly, until the client's goal is the one.
        deadline = time.monotonic() + 5
        goal = self.bus.receive("r1/goal", timeout=5)
        while goal.header.source != "python" and time.monotonic() < deadline:
            time.sleep(0.1)
            goal = self.bus.receive("r1/goal", timeout=5)
        self.assertEqual(goal.header.source, "python")
        self.assertEqual(goal.data.instruction_id, 99)
        self.assertEqual((goal.data.goal.x, goal.data.goal.y), (3.0, 2.0))
        self.bus.publish("r1/goal", {"active": False, "instruction_id": -1}, latched=True)

    def test_the_brokers_topic_types_agree_with_the_naming_convention(self):
        topics = self.bus.topics()
        self.assertIn("r1/scan", topics)
        for topic, stats in topics.items():
            expected = limbic.conventional_type(topic)
            if expected is not None and stats.type:
                self.assertEqual(stats.type, "limbic.msg." + expected, topic)

    def test_latched_world_arrives_at_once(self):
        start = time.monotonic()
        world = self.bus.receive("world", timeout=3).data
        self.assertLess(time.monotonic() - start, 3)
        self.assertEqual(world.env_set, "D")
        self.assertGreater(len(world.polygons), 0)

    def test_a_published_goal_is_followed(self):
        world = self.bus.receive("world", timeout=3).data
        goal = {"x": world.goal.x, "y": world.goal.y}

        def distance():
            pose = self.bus.receive("r1/odom", timeout=5).data.pose
            return math.hypot(goal["x"] - pose.x, goal["y"] - pose.y)

        before = distance()
        self.assertGreater(before, 2.0, "the robot starts away from the environment's goal")
        self.bus.publish("r1/goal", {"active": True, "goal": goal, "instruction_id": 4242,
                                     "distance_at_start": before}, latched=True)
        # The planner plans to it: its paths name our instruction.
        path = None
        for m in self.bus.subscribe("r1/path", timeout=10):
            if m.data.instruction_id == 4242 and m.data.success:
                path = m.data
                break
        self.assertIsNotNone(path)
        self.assertGreater(len(path.nodes), 1)
        self.assertLess(math.hypot(path.nodes[-1].x - goal["x"], path.nodes[-1].y - goal["y"]), 0.5)
        # And the robot moves toward it: at least 1 m closer within 30 s (it drives at up to ~0.5 m/s).
        deadline = time.monotonic() + 30
        now = before
        while time.monotonic() < deadline and now > before - 1.0:
            self.bus.poll(0.5)  # keeps the latched goal re-sent
            now = distance()
        self.assertLess(now, before - 1.0, f"distance to the goal {before:.2f} m -> {now:.2f} m")
        # Stop: an inactive goal (instruction -1).
        self.bus.publish("r1/goal", {"active": False, "instruction_id": -1}, latched=True)

    def test_a_live_parameter_takes_effect(self):
        fusion = self.bus.param_get("r1/planner", "fusion")
        self.assertEqual(fusion.kind, "live")
        self.assertEqual(fusion.value, "affect")
        self.assertIn("additive", fusion.range)
        every = self.bus.param_get("r1/planner")
        self.assertIn("fusion", [p.name for p in every])

        self.assertEqual(self.bus.param_set("r1/planner", "fusion", "additive"), "additive")
        try:
            self.assertEqual(self.bus.param_get("r1/planner", "fusion").value, "additive")
            # The planner replans at once and marks paths planned with the emotion layer added to p_o.
            seen = False
            for m in self.bus.subscribe("r1/path", timeout=10):
                if m.data.emotion_additive:
                    seen = True
                    break
            self.assertTrue(seen)
        finally:
            self.assertEqual(self.bus.param_set("r1/planner", "fusion", "affect"), "affect")

    def test_refused_parameter_requests_say_why(self):
        with self.assertRaisesRegex(limbic.ParamError, "fusion"):
            self.bus.param_set("r1/planner", "fusion", "sideways")
        with self.assertRaisesRegex(limbic.ParamError, "no parameter 'no_such_thing'"):
            self.bus.param_get("r1/planner", "no_such_thing")
        with self.assertRaisesRegex(limbic.BusError, "no service 'r9/planner'"):
            self.bus.param_get("r9/planner")

    def test_unreachable_broker_is_a_clear_error_after_the_timeout(self):
        start = time.monotonic()
        with tempfile.TemporaryDirectory() as empty:
            with self.assertRaisesRegex(limbic.BusError, "cannot reach the bus at ipc://.* within 1 s"):
                limbic.Bus(f"ipc://{empty}/nobody", timeout=1)
        self.assertLess(time.monotonic() - start, 3)
        with self.assertRaisesRegex(limbic.BusError, "unknown scheme"):
            limbic.Bus("udp://127.0.0.1:7400")
        with self.assertRaisesRegex(limbic.BusError, "needs a port"):
            limbic.Bus("tcp://127.0.0.1")

    def test_unknown_topic_type_is_refused_before_sending(self):
        with self.assertRaisesRegex(limbic.SchemaError, "no type by limbic's naming convention"):
            self.bus.publish("python/custom", {"v": 1})
        with self.assertRaisesRegex(limbic.SchemaError, "carries NavGoal, not Odometry"):
            self.bus.publish("r1/goal", {"v": 1.0}, type="Odometry")
        with self.assertRaisesRegex(limbic.SchemaError, "unknown message type 'Bogus'"):
            self.bus.publish("python/custom", {}, type="Bogus")
        # Outside the convention a type can be named: the topic then carries it (the broker fixes it).
        self.bus.publish("python/custom", {"v": 0.5, "omega": 0.0}, type="VelocityCommand")

    def test_malformed_payload_is_dropped_and_counted(self):
        topic = "python/malformed"
        watcher = limbic.Bus(BUS, name="python-watcher")
        try:
            received = watcher.subscribe(topic, timeout=2)
            watcher.poll(0.3)  # the subscription reaches the broker
            before = self.bus.topics().get(topic)
            before = before.drops_malformed if before else 0
            # A buffer that claims to be a NavGoal but whose root offset points far outside it, and one with an
            # identifier no type has.
            self.bus.send_raw(topic, b"\xff\xff\x00\x00GOAL" + b"\x00" * 8)
            self.bus.send_raw(topic, b"\x08\x00\x00\x00ZZZZ" + b"\x00" * 8)
            counted = None
            for _ in range(5):
                stats = self.bus.topics().get(topic)
                if stats and stats.drops_malformed >= before + 1 and stats.drops_wrong_type >= 1:
                    counted = stats
                    break
            self.assertIsNotNone(counted, "the broker did not count the bad payloads on bus/stats")
            self.assertEqual(counted.messages, 0)
            with self.assertRaises(limbic.Timeout):  # nothing was forwarded
                next(received)
        finally:
            watcher.close()

    def test_a_recording_reads_back(self):
        if not BIN:
            self.skipTest("LIMBIC_BIN_DIR is not set")
        for compression in ("zstd", "lz4", "none"):
            with self.subTest(compression=compression), tempfile.TemporaryDirectory() as work:
                path = os.path.join(work, "r.mcap")
                subprocess.run([os.path.join(BIN, "limbic"), "record", "r1/odom", "r1/affect", "world", "--out", path,
                                "--duration", "2", "--compression", compression, "--bus", BUS], check=True,
                               capture_output=True, timeout=30)
                with McapReader(path) as bag:
                    messages = list(bag.messages())
                    self.assertTrue(bag.complete)
                by_topic = {}
                for m in messages:
                    by_topic.setdefault(m.topic, []).append(m)
                self.assertGreater(len(by_topic.get("r1/odom", [])), 5)
                self.assertGreater(len(by_topic.get("r1/affect", [])), 5)
                self.assertGreaterEqual(len(by_topic.get("world", [])), 1)
                odom = by_topic["r1/odom"]
                self.assertEqual(odom[0].type, "Odometry")
                self.assertEqual(odom[0].data.header.source, "r1/hwio")
                self.assertTrue(all(a.log_time_ns <= b.log_time_ns for a, b in zip(odom, odom[1:])))
                self.assertEqual(len(by_topic["r1/affect"][0].data.emotions_combined), 7)
                # The same counts as the C++ reader's (limbic bag info).
                info = subprocess.run([os.path.join(BIN, "limbic"), "bag", "info", path], check=True,
                                      capture_output=True, text=True, timeout=30).stdout
                for topic, ms in by_topic.items():
                    line = next((l for l in info.splitlines() if l.split()[:1] == [topic]), None)
                    self.assertIsNotNone(line, f"{topic} missing from limbic bag info:\n{info}")
                    self.assertIn(str(len(ms)), line.split(), line)

    def test_a_split_recording_reads_back_as_one(self):
        if not BIN:
            self.skipTest("LIMBIC_BIN_DIR is not set")
        with tempfile.TemporaryDirectory() as work:
            path = os.path.join(work, "split.mcap")
            # Emotion layers (18 kB at 10 Hz), maps and scans, uncompressed: 0.25 MB parts give several files in 5 s.
            subprocess.run([os.path.join(BIN, "limbic"), "record", "r1/*", "world", "--out", path, "--duration", "5",
                            "--split-size", "0.25", "--chunk-kb", "64", "--compression", "none", "--bus", BUS],
                           check=True, capture_output=True, timeout=30)
            files = limbic.recording_files(path)
            self.assertGreaterEqual(len(files), 2, os.listdir(work))
            self.assertEqual([os.path.basename(f) for f in files],
                             [f"split_{i:03d}.mcap" for i in range(len(files))])
            counts = {}
            for m in limbic.read_recording(path, decode=False):
                counts[m.topic] = counts.get(m.topic, 0) + 1
            info = subprocess.run([os.path.join(BIN, "limbic"), "bag", "info", path], check=True,
                                  capture_output=True, text=True, timeout=60).stdout
            listed = {l.split()[0]: int(l.split()[2]) for l in info.splitlines()
                      if len(l.split()) >= 3 and l.split()[0] in counts}
            self.assertEqual(listed, counts)
            with self.assertRaisesRegex(limbic.McapError, "no recording at .*none.mcap"):
                limbic.recording_files(os.path.join(work, "none.mcap"))


class Curve(unittest.TestCase):
    """A CURVE broker on tcp loopback (its own limbic-bus): a client with admitted keys reaches it, one without keys
    or with keys it does not list gets the clear 'cannot reach' error."""

    def test_admitted_keys_reach_a_curve_broker_and_others_do_not(self):
        if not BIN:
            self.skipTest("LIMBIC_BIN_DIR is not set")
        with tempfile.TemporaryDirectory() as work:
            limbic_cli = os.path.join(BIN, "limbic")
            subprocess.run([limbic_cli, "keys", "generate", "--out", work, "robot", "ws"], check=True,
                           capture_output=True, timeout=30)
            subprocess.run([limbic_cli, "keys", "generate", "--out", os.path.join(work, "other"), "robot", "ws"],
                           check=True, capture_output=True, timeout=30)
            import socket
            with socket.socket() as s:
                s.bind(("127.0.0.1", 0))
                port = s.getsockname()[1]
            address = f"tcp://127.0.0.1:{port}"
            broker = subprocess.Popen([os.path.join(BIN, "limbic-bus"), "--bus", address, "--curve-server",
                                       os.path.join(work, "robot.server.yaml")], stdout=subprocess.DEVNULL,
                                      stderr=subprocess.DEVNULL)
            try:
                with limbic.Bus(address, curve_keys=os.path.join(work, "ws.client.yaml"), timeout=5) as bus:
                    self.assertGreaterEqual(bus.stats().subscribers, 1)
                    # Publishing works through CURVE too: the broker counts it.
                    bus.publish("python/curve", {"v": 0.25}, type="VelocityCommand")
                    counted = None
                    for _ in range(4):
                        counted = bus.topics().get("python/curve")
                        if counted:
                            break
                    self.assertIsNotNone(counted)
                    self.assertEqual(counted.messages, 1)
                with self.assertRaisesRegex(limbic.BusError, "cannot reach the bus"):
                    limbic.Bus(address, timeout=1.5)
                with self.assertRaisesRegex(limbic.BusError, "cannot reach the bus"):
                    limbic.Bus(address, curve_keys=os.path.join(work, "other", "ws.client.yaml"), timeout=1.5)
                with self.assertRaisesRegex(limbic.BusError, "missing server_public, client_public, client_secret"):
                    limbic.Bus(address, curve_keys=os.path.join(work, "robot.server.yaml"))
            finally:
                broker.terminate()
                broker.wait(timeout=10)


class ExperimentFiles(unittest.TestCase):
    """runs.csv and the recordings of a real experiment (`recorded_smoke`: two lockstep runs, every message
    recorded, ~5 s), read back into plain Python structures."""

    def test_runs_csv_and_recordings_of_an_experiment(self):
        if not BIN:
            self.skipTest("LIMBIC_BIN_DIR is not set")
        with tempfile.TemporaryDirectory() as out:
            subprocess.run([os.path.join(BIN, "limbic"), "experiment", "run", "recorded_smoke", "--jobs", "1", "--out",
                            out], check=True, capture_output=True, timeout=120)
            rows = limbic.read_runs_csv(os.path.join(out, "runs.csv"))
            self.assertEqual(len(rows), 2)  # two runs of one traversal
            self.assertEqual({r["set"] for r in rows}, {"B"})
            self.assertEqual(sorted(r["env"] for r in rows), [0, 1])
            for r in rows:
                self.assertIsInstance(r["success"], bool)
                self.assertIsInstance(r["seed"], int)
                self.assertIsInstance(r["completion_time_s"], float)
                self.assertEqual(r["status"], "ok")
            recordings = sorted(os.listdir(os.path.join(out, "recordings")))
            self.assertEqual(len(recordings), 2)
            for name in recordings:
                path = os.path.join(out, "recordings", name)
                bag = McapReader(path)
                counts = {}
                metrics = []
                for m in bag.messages():
                    counts[m.topic] = counts.get(m.topic, 0) + 1
                    if m.topic == "r1/metrics":
                        metrics.append(m.data)
                self.assertTrue(bag.complete)
                self.assertGreater(counts["r1/odom"], 100)
                # The recorded run metrics are the row of runs.csv for that run.
                row = next(r for r in rows if name.startswith(r["run_id"]))
                self.assertEqual(len(metrics), 1)
                self.assertEqual(metrics[0].completion_time_s, row["completion_time_s"])
                self.assertEqual(metrics[0].success, row["success"])
                self.assertEqual(metrics[0].seed, row["seed"])
                # Every topic with the count the C++ reader gives (limbic bag info).
                info = subprocess.run([os.path.join(BIN, "limbic"), "bag", "info", path], check=True,
                                      capture_output=True, text=True, timeout=60).stdout
                listed = {l.split()[0]: int(l.split()[2]) for l in info.splitlines()
                          if len(l.split()) >= 3 and l.split()[0] in counts}
                self.assertEqual(listed, counts)


if __name__ == "__main__":
    unittest.main()
