"""A client of limbic's bus in Python (docs/protocol.md is the contract it implements).

    from limbic import Bus
    with Bus("ipc:///tmp/limbic/demo-bus") as bus:
        for m in bus.subscribe("r1/odom", count=3):
            print(m.header.seq, m.data.pose.x, m.data.v)
        bus.publish("r1/goal", {"active": True, "goal": {"x": 3, "y": 2}, "instruction_id": 99}, latched=True)
        print(bus.param_get("r1/planner", "fusion").value)

Publishers send [topic][payload] on a PUB socket to the broker's frontend; subscribers are one DEALER socket to its
backend that sends "\\x01PREFIX" per subscription and "" keepalives, and answers the broker's "\\x01" (resubscribe).
"""
import collections
import os
import random
import time

import zmq

from . import schema
from .schema import SchemaError


class BusError(RuntimeError):
    """The bus cannot be used: an address it cannot take, a broker that does not answer."""


class Timeout(BusError):
    """Nothing arrived in time."""


class ParamError(BusError):
    """A service refused a parameter request (unknown name, invalid value, a start-up option); the message says why."""


def endpoints(address):
    """The broker's (frontend, backend) for a bus address, as bus::ResolveBusAddress gives them:
    ipc://PATH -> ipc://PATH.in, ipc://PATH.out; tcp://HOST:P -> tcp://HOST:P, tcp://HOST:P+1."""
    scheme, sep, rest = address.partition("://")
    if not sep:
        raise BusError(f"bus address '{address}' has no scheme (expected ipc://PATH or tcp://HOST:PORT)")
    if not rest:
        raise BusError(f"bus address '{address}' is empty after the scheme")
    if scheme == "ipc":
        return f"ipc://{rest}.in", f"ipc://{rest}.out"
    if scheme == "inproc":
        raise BusError(f"bus address '{address}': inproc:// is inside one C++ process; use ipc:// or tcp://")
    if scheme == "tcp":
        host, colon, port = rest.rpartition(":")
        if not colon or not host or (host.startswith("[") and not host.endswith("]")):
            raise BusError(f"bus address '{address}' needs a port (tcp://HOST:PORT)")
        if not port.isdigit() or not 0 < int(port) < 65535:
            raise BusError(f"bus address '{address}' has a bad port")
        if ":" in host and not host.startswith("["):
            raise BusError(f"bus address '{address}': write an IPv6 address in brackets (tcp://[::1]:{port})")
        return f"tcp://{host}:{port}", f"tcp://{host}:{int(port) + 1}"
    raise BusError(f"bus address '{address}': unknown scheme '{scheme}' (expected ipc or tcp)")


def load_curve_keys(path):
    """server_public, client_public, client_secret (Z85) from a client key file of `limbic keys generate` (YAML:
    `name: "value"` lines and # comments; Z85 keys contain '#' and ':', so values are read as quoted)."""
    keys = {}
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines()
    except OSError as e:
        raise BusError(f"CURVE key file {path}: {e.strerror}") from None
    for line in lines:
        name, colon, value = line.strip().partition(":")
        if not colon or name.startswith("#"):
            continue
        value = value.strip()
        if value[:1] in ("'", '"') and value[0] in value[1:]:
            value = value[1:value.index(value[0], 1)]
        else:
            value = value.split(" #", 1)[0].strip()
        keys[name.strip()] = value
    missing = [k for k in ("server_public", "client_public", "client_secret") if not keys.get(k)]
    if missing:
        raise BusError(f"CURVE key file {path}: missing {', '.join(missing)}")
    bad = [k for k in ("server_public", "client_public", "client_secret") if len(keys[k]) != 40]
    if bad:
        raise BusError(f"CURVE key file {path}: {', '.join(bad)} is not a 40-character Z85 key")
    return keys


MAX_ENDPOINT_BYTES = 256  # bus::kMaxEndpointBytes
MAX_DIRECTORY_TOPIC_BYTES = 256  # bus::kMaxDirectoryTopicBytes
_Z85 = frozenset(b"0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#")


def parse_directory_entry(body):
    """(topic, endpoint, key) of a directory entry's body `ENDPOINT\\0TOPIC[\\0KEY]` (bytes after the code), or None
    if malformed — the rules of bus::ParseDirectoryEntry."""
    parts = body.split(b"\0")
    if len(parts) not in (2, 3):
        return None
    endpoint, topic = parts[0], parts[1]
    key = parts[2] if len(parts) == 3 else b""
    if not endpoint or not topic or len(endpoint) > MAX_ENDPOINT_BYTES or len(topic) > MAX_DIRECTORY_TOPIC_BYTES:
        return None
    if any(c < 0x20 or c == 0x7F for c in endpoint + topic):
        return None
    if not any(endpoint.startswith(s) and len(endpoint) > len(s) for s in (b"ipc://", b"tcp://", b"inproc://")):
        return None
    if topic.startswith(b"bus/hwm/") or b"*" in endpoint:
        return None
    if len(parts) == 3 and (len(key) != 40 or any(c not in _Z85 for c in key)):
        return None
    try:
        return topic.decode(), endpoint.decode(), key.decode()
    except UnicodeDecodeError:
        return None


class DirectLinks:
    """Which endpoints the data socket is connected to, with which key, and which topics it subscribed there
    (bus::DirectLinks, common/bus/directory.hpp): connect once per endpoint, subscribe once per topic. Letting go of
    an endpoint, and connecting again to one whose publisher's key changed, wait for the next point where the data
    socket has been drained (take_lingering, then take_reconnects): libzmq's fair queue loses a half-read message's
    place when a pipe it counts active is terminated mid-message. Entries are kept per key, so the withdrawal of a
    gone publisher's key does not take the endpoint from the new publisher there."""

    Change = collections.namedtuple("Change", "connect subscribe disconnect unsubscribe reconnect",
                                    defaults=(False,))

    def __init__(self):
        self._entries_at = collections.defaultdict(set)  # endpoint -> {(topic, key)}
        self._endpoints_of = {}                           # topic -> {endpoint: entries (keys) there}
        self._key_at = {}                                 # endpoint with entries -> its latest announcement's key
        self._connected = {}                              # endpoint -> the key the data socket is connected with
        self._lingering = set()                           # connected endpoints to let go of at the safe point
        self._reconnect = set()                           # of those, the ones to connect again (with _key_at)

    def add(self, topic, endpoint, key=""):
        entries = self._entries_at[endpoint]
        if (topic, key) in entries:
            return self.Change(False, False, False, False)
        entries.add((topic, key))
        connect = reconnect = False
        if len(entries) == 1 or self._key_at.get(endpoint) != key:
            # A first entry here, or a publisher here with another key (the broker vouches for the newest).
            self._key_at[endpoint] = key
            if endpoint not in self._connected:
                connect = True
                self._connected[endpoint] = key
            elif self._connected[endpoint] == key:
                # Still connected with this key (it lingered): taken up again as it is, without a second connection.
                self._lingering.discard(endpoint)
                self._reconnect.discard(endpoint)
            else:
                # Connected with another key: let go of and made again at the safe point (what it sent is read first).
                reconnect = True
                self._lingering.add(endpoint)
                self._reconnect.add(endpoint)
        endpoints = self._endpoints_of.setdefault(topic, {})
        subscribe = not endpoints
        endpoints[endpoint] = endpoints.get(endpoint, 0) + 1
        return self.Change(connect, subscribe, False, False, reconnect)

    def remove(self, topic, endpoint, key=""):
        """A withdrawal with a key removes that key's entry only; without one (no CURVE), the topic's whatever key."""
        entries = self._entries_at.get(endpoint)
        if not entries:
            return self.Change(False, False, False, False)
        gone = {e for e in entries if e[0] == topic and (not key or e[1] == key)}
        if not gone:
            return self.Change(False, False, False, False)
        entries -= gone
        disconnect = unsubscribe = False
        if not entries:
            del self._entries_at[endpoint]
            self._key_at.pop(endpoint, None)
            self._reconnect.discard(endpoint)
            self._lingering.add(endpoint)
            disconnect = True
        endpoints = self._endpoints_of[topic]
        endpoints[endpoint] -= min(endpoints[endpoint], len(gone))
        if endpoints[endpoint] == 0:
            del endpoints[endpoint]
        if not endpoints:
            del self._endpoints_of[topic]
            unsubscribe = True
        return self.Change(False, False, disconnect, unsubscribe)

    def take_lingering(self):
        """The endpoints to disconnect now: call only where the data socket has just been drained."""
        out = sorted(self._lingering)
        for endpoint in out:
            self._connected.pop(endpoint, None)
        self._lingering.clear()
        return out

    def take_reconnects(self):
        """Right after take_lingering's disconnects: [(endpoint, key)] to connect again."""
        out = [(endpoint, self._key_at[endpoint]) for endpoint in sorted(self._reconnect)]
        for endpoint, key in out:
            self._connected[endpoint] = key
        self._reconnect.clear()
        return out

    def lingering(self):
        return len(self._lingering)

    def endpoints(self):
        return len(self._entries_at)


class Message(collections.namedtuple("Message", "topic type header data payload")):
    """A received message: topic, type name ("Odometry"), header (Record), data (the whole message as a Record,
    header included) and the payload bytes as they arrived."""


class _Subscription:
    def __init__(self, topic):
        self.prefix = topic[:-1] if topic.endswith("*") else topic
        self.exact = not topic.endswith("*")
        self.queue = collections.deque()
        self.users = 0

    def matches(self, topic):
        return topic == self.prefix if self.exact else topic.startswith(self.prefix)


DROP_REASONS = ("malformed", "wrong_type", "oversize", "gap", "duplicates")


class Subscription:
    """Messages on one topic or prefix, from Bus.subscribe. An iterator; closing it (close(), `with`, or when it is
    garbage) unsubscribes."""

    def __init__(self, bus, topic, count, timeout, decode):
        self.topic, self._bus, self._count, self._timeout, self._decode = topic, bus, count, timeout, decode
        self._given = 0
        self._sub = bus._subscribe(topic)

    def __iter__(self):
        return self

    def __next__(self):
        if self._sub is None or (self._count is not None and self._given >= self._count):
            self.close()
            raise StopIteration
        m = self._bus._next(self._sub, self._timeout, self._decode)
        if m is None:
            raise Timeout(f"no message on '{self.topic}' within {self._timeout:g} s")
        self._given += 1
        return m

    def close(self):
        if self._sub is not None:
            self._sub = None
            self._bus._unsubscribe(self.topic)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:  # the Bus may be closed already
            pass


class Bus:
    """One connection to a limbic bus. Not thread-safe (like bus::Node: one thread owns it).

    address: ipc://PATH or tcp://HOST:PORT (default: $LIMBIC_BUS). name: written into every header's `source`.
    curve_keys: a key file of `limbic keys generate` (default: $LIMBIC_CURVE_KEYS) for a CURVE broker.
    timeout: seconds to wait for the broker's first bus/stats (it sends one a second); BusError if none comes.
    """

    KEEPALIVE_S = 1.0       # bus::NodeOptions::keepalive
    LATCHED_RESEND_S = 1.0  # bus::NodeOptions::latched_resend
    HIGH_WATER_S = 1.0      # bus::NodeOptions::high_water_period
    QUEUE_LIMIT = 10000     # messages held per subscription not read yet; beyond it the oldest go (seen as a gap)

    def __init__(self, address=None, name="python", curve_keys=None, timeout=3.0):
        address = address or os.environ.get("LIMBIC_BUS")
        if not address:
            raise BusError("no bus address: pass Bus(address) or set LIMBIC_BUS (e.g. ipc:///tmp/limbic/demo-bus)")
        self.address = address
        self.name = name
        frontend, backend = endpoints(address)
        curve_keys = curve_keys or os.environ.get("LIMBIC_CURVE_KEYS") or None
        keys = load_curve_keys(curve_keys) if curve_keys else None
        self._context = zmq.Context()
        self._pub = self._context.socket(zmq.PUB)
        self._sub = self._context.socket(zmq.DEALER)
        for s in (self._pub, self._sub):
            s.setsockopt(zmq.LINGER, 0)
            s.setsockopt(zmq.RECONNECT_IVL, 100)
            s.setsockopt(zmq.RECONNECT_IVL_MAX, 1000)
            if frontend.startswith("tcp://["):
                s.setsockopt(zmq.IPV6, 1)
            if keys:
                s.curve_serverkey = keys["server_public"].encode()
                s.curve_publickey = keys["client_public"].encode()
                s.curve_secretkey = keys["client_secret"].encode()
        self._pub.setsockopt(zmq.SNDHWM, 10000)
        self._sub.setsockopt(zmq.RCVHWM, 10000)
        self._pub.connect(frontend)
        self._sub.connect(backend)
        # Direct delivery (docs/protocol.md §13): publishers on the direct path send from their own socket; the
        # broker tells a subscriber where (one-frame directory entries on the DEALER) and this SUB connects there.
        self._keys = keys
        self._data = self._context.socket(zmq.SUB)
        self._data.setsockopt(zmq.LINGER, 0)
        self._data.setsockopt(zmq.RECONNECT_IVL, 100)
        self._data.setsockopt(zmq.RECONNECT_IVL_MAX, 1000)
        self._data.setsockopt(zmq.RCVHWM, 10000)
        self._data.setsockopt(zmq.IPV6, 1)
        if keys:
            self._data.curve_publickey = keys["client_public"].encode()
            self._data.curve_secretkey = keys["client_secret"].encode()
        self._links = DirectLinks()
        self.directory_rejected = 0  # directory entries refused (malformed, or a key that does not fit this bus)
        self._poller = zmq.Poller()
        self._poller.register(self._sub, zmq.POLLIN)
        self._poller.register(self._data, zmq.POLLIN)
        self._subs = {}
        self._seq = collections.Counter()
        self._latched = {}
        self._sources = {}
        self.incarnation = random.getrandbits(64) or 1
        self.drops = collections.defaultdict(collections.Counter)  # topic -> reason -> count
        self.received = collections.Counter()                      # topic -> messages handed out
        self._next_keepalive = time.monotonic() + self.KEEPALIVE_S
        self._next_resend = time.monotonic() + self.LATCHED_RESEND_S
        self._next_high_water = time.monotonic() + self.HIGH_WATER_S
        self._report_seq = collections.Counter()
        if timeout is not None:
            try:
                self.stats(timeout=timeout)
            except Timeout:
                self.close()
                raise BusError(f"cannot reach the bus at {address} within {timeout:g} s (is limbic-bus running? "
                               "set the address or LIMBIC_BUS; a CURVE broker needs curve_keys or "
                               "LIMBIC_CURVE_KEYS)") from None
            # The PUB socket connected while the DEALER did; ZeroMQ drops what a PUB sends before its peer has
            # subscribed, so give the broker's XSUB a moment to tell it (it subscribes to everything).
            time.sleep(0.1)

    def close(self):
        if self._context.closed:
            return
        self._pub.close(0)
        self._sub.close(0)
        self._data.close(0)
        self._context.term()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # --- publishing -------------------------------------------------------------------------------------------

    def publish(self, topic, message, type=None, latched=False, tick=-1, stamp_ns=None):
        """Sends `message` (a dict keyed by schema field names, a Record, or a limbic.msg object-API instance) on
        `topic` and returns the payload sent. The type is `type`, else the message's object-API class, else the
        topic's by convention (r1/goal: NavGoal); a topic outside the convention needs `type`. The header is filled
        in unless the message has one: stamp (wall clock, ns), tick, seq (per topic, from 1), source (this bus's
        name), latched, incarnation. A latched message is re-sent every second while this Bus is used (poll,
        subscribe), so a restarted broker gets it again. The broker checks every value (messages/validate.cpp) and
        drops what breaks a rule, counted as `invalid` on bus/stats."""
        type_name = self._type_for(topic, message, type)
        if isinstance(message, dict):
            message = dict(message)
            if message.get("header") is None:
                message["header"] = self._header(topic, latched, tick, stamp_ns)
        elif getattr(message, "header", None) is None:
            message.header = schema.from_dict("Header", self._header(topic, latched, tick, stamp_ns))
        payload = schema.encode(type_name, message)
        self.send_raw(topic, payload)
        if latched:
            self._latched[topic] = payload
        else:
            self._latched.pop(topic, None)  # no longer re-sent
        return payload

    def high_water_reports(self):
        """(topic, payload) of a HighWaterReport for every topic this Bus has published with a header it numbered:
        on bus/hwm/<topic>, the last seq sent there, with this Bus's source and incarnation (docs/protocol.md,
        Losses). Subscribers count what was sent after the last message that reached them as lost (tail)."""
        reports = []
        for topic, last_seq in self._seq.items():
            self._report_seq[topic] += 1
            header = {"stamp_ns": time.time_ns(), "tick": 0, "seq": self._report_seq[topic], "source": self.name,
                      "latched": False, "incarnation": self.incarnation}
            payload = schema.encode("HighWaterReport", {"header": header, "topic": topic, "last_seq": last_seq})
            reports.append(("bus/hwm/" + topic, payload))
        return reports

    def send_high_water_reports(self):
        """Sends high_water_reports() through the socket of the data, behind it; poll() does it every HIGH_WATER_S."""
        for topic, payload in self.high_water_reports():
            self.send_raw(topic, payload)

    def send_raw(self, topic, payload):
        """Sends bytes as they are, unchecked (tests: a malformed payload is dropped by the broker and counted)."""
        self._pub.send_multipart([topic.encode(), bytes(payload)], flags=zmq.DONTWAIT)

    def _type_for(self, topic, message, type):
        conventional = schema.conventional_type(topic)
        if type is not None:
            name = schema.type_name_of(type)
        elif not isinstance(message, dict) and message.__class__.__name__.endswith("T"):
            name = schema.type_name_of(message.__class__.__name__[:-1])
        elif conventional is not None:
            name = conventional
        else:
            raise SchemaError(f"topic '{topic}' has no type by limbic's naming convention: pass type= "
                              f"(one of {', '.join(sorted(schema.ROOTS))})")
        if conventional is not None and name != conventional:
            raise SchemaError(f"topic '{topic}' carries {conventional}, not {name} (the broker would drop it as "
                              "wrong_type)")
        return name

    def _header(self, topic, latched, tick, stamp_ns):
        self._seq[topic] += 1
        return {"stamp_ns": time.time_ns() if stamp_ns is None else stamp_ns, "tick": tick, "seq": self._seq[topic],
                "source": self.name, "latched": bool(latched), "incarnation": self.incarnation}

    # --- subscribing ------------------------------------------------------------------------------------------

    def subscribe(self, topic, count=None, timeout=None, decode=True):
        """A Subscription to `topic` (exactly; `prefix*` for every topic under a prefix), sent to the broker at once:
        iterate it for Message tuples, `count` of them or until you stop (close() or leave a `with` block).
        `timeout`: seconds to wait for each message before raising Timeout (None: wait for ever). A new
        subscription first gets the last value of every latched topic it covers (the broker replays them).
        decode=False leaves `data` None (the payload and header only)."""
        return Subscription(self, topic, count, timeout, decode)

    def receive(self, topic, timeout=5.0, decode=True):
        """One message on `topic` (a latched one at once, if the broker holds it). Raises Timeout."""
        with self.subscribe(topic, count=1, timeout=timeout, decode=decode) as sub:
            return next(sub)

    def poll(self, seconds=0.0):
        """Handles the sockets for `seconds`: receives into the subscriptions' queues, keepalives, latched re-sends.
        Call it when holding subscriptions without reading them, or to keep latched values alive."""
        deadline = time.monotonic() + seconds
        while True:
            self._pump(max(0.0, deadline - time.monotonic()))
            if time.monotonic() >= deadline:
                return

    def _subscribe(self, topic):
        sub = self._subs.get(topic)
        if sub is None:
            sub = self._subs[topic] = _Subscription(topic)
            # A new subscription sees its topics afresh: the latched values the broker replays to it are not
            # duplicates of what an earlier subscription of this Bus received.
            for key in [k for k in self._sources if sub.matches(k[0])]:
                del self._sources[key]
            self._control(b"\x01" + sub.prefix.encode())
        sub.users += 1
        return sub

    def _control(self, frame):
        # Never blocks, like bus::Node: a DEALER without a ready connection (no broker yet, a CURVE handshake that
        # failed) refuses at once; the keepalive and the broker's resubscribe request repair what was lost.
        try:
            self._sub.send(frame, flags=zmq.DONTWAIT)
        except zmq.ZMQError:
            pass

    def _unsubscribe(self, topic):
        sub = self._subs.get(topic)
        if sub is None:
            return
        sub.users -= 1
        if sub.users <= 0:
            del self._subs[topic]
            if not any(s.prefix == sub.prefix for s in self._subs.values()):
                self._control(b"\x00" + sub.prefix.encode())

    def _next(self, sub, timeout, decode):
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            while sub.queue:
                topic, payload = sub.queue.popleft()
                m = self._decode(topic, payload, decode)
                if m is not None:
                    return m
            if deadline is not None and time.monotonic() >= deadline:
                return None
            wait = self.KEEPALIVE_S if deadline is None else min(self.KEEPALIVE_S, deadline - time.monotonic())
            self._pump(max(0.0, wait))

    def _pump(self, wait_s):
        now = time.monotonic()
        if now >= self._next_keepalive:
            # An empty frame: a broker that does not know this connection (it restarted) asks for the
            # subscriptions again ("\x01"), answered in _receive.
            self._control(b"")
            self._next_keepalive = now + self.KEEPALIVE_S
        if now >= self._next_resend:
            for topic, payload in self._latched.items():
                self.send_raw(topic, payload)
            self._next_resend = now + self.LATCHED_RESEND_S
        if now >= self._next_high_water:
            self.send_high_water_reports()
            self._next_high_water = now + self.HIGH_WATER_S
        wait_s = min(wait_s, max(0.0, self._next_keepalive - now), max(0.0, self._next_resend - now),
                     max(0.0, self._next_high_water - now))
        if self._poller.poll(int(wait_s * 1000)) or self._links.lingering():
            for socket in (self._sub, self._data):
                for _ in range(10000):
                    try:
                        frames = socket.recv_multipart(flags=zmq.DONTWAIT)
                    except zmq.Again:
                        if socket is self._data:
                            self._let_go_of_lingering()
                        break
                    self._receive(frames)

    def _let_go_of_lingering(self):
        for endpoint in self._links.take_lingering():
            try:
                self._data.disconnect(endpoint)
            except zmq.ZMQError:
                pass  # never connected
        for endpoint, key in self._links.take_reconnects():
            self._connect_data(endpoint, key)

    def _connect_data(self, endpoint, key):
        try:
            if key:
                self._data.curve_serverkey = key.encode()
            self._data.connect(endpoint)
            return True
        except zmq.ZMQError:
            self.directory_rejected += 1
            return False

    def _receive(self, frames):
        if len(frames) == 1 and len(frames[0]) <= 1:
            # Control from the broker: b"\x00" ping (nothing to do), b"\x01" resubscribe.
            if frames[0] == b"\x01":
                for prefix in {s.prefix for s in self._subs.values()}:
                    self._control(b"\x01" + prefix.encode())
            return
        if len(frames) == 1 and frames[0][:1] in (b"\x02", b"\x03"):
            self._directory(frames[0])
            return
        topic = frames[0].decode("utf-8", "replace")
        if len(frames) != 2:
            self.drops[topic]["malformed"] += 1
            return
        for sub in self._subs.values():
            if sub.matches(topic):
                if len(sub.queue) >= self.QUEUE_LIMIT:
                    sub.queue.popleft()  # the oldest; its sequence number shows as a gap when the next is read
                sub.queue.append((topic, frames[1]))

    def _directory(self, frame):
        """A directory entry from the broker (docs/protocol.md §13): connect the data socket where a topic this Bus
        subscribed is published directly (b"\\x02"), or let go of it (b"\\x03"), as bus::Node::HandleDirectory."""
        entry = parse_directory_entry(frame[1:])
        announce = frame[:1] == b"\x02"
        if entry is None:
            self.directory_rejected += 1
            return
        topic, endpoint, key = entry
        if endpoint.startswith("inproc://"):
            return  # another process's in-process socket: only reachable from inside it
        if announce and bool(key) != bool(self._keys):
            self.directory_rejected += 1  # a CURVE bus's entry without the publisher's key, or a key without CURVE
            return
        if not announce:
            change = self._links.remove(topic, endpoint, key)
            if change.unsubscribe:
                self._data.setsockopt(zmq.UNSUBSCRIBE, topic.encode())
                self._data.setsockopt(zmq.UNSUBSCRIBE, ("bus/hwm/" + topic).encode())
            return  # change.disconnect: it lingers until the data socket is drained (_pump)
        if not any(sub.matches(topic) for sub in self._subs.values()):
            return
        change = self._links.add(topic, endpoint, key)
        # change.reconnect (a new key where the old connection still is): remade once the data socket is drained.
        if change.connect and not self._connect_data(endpoint, key):
            self._links.remove(topic, endpoint, key)  # lingers; its disconnect at the safe point finds nothing
            return
        if change.subscribe:
            self._data.setsockopt(zmq.SUBSCRIBE, topic.encode())
            self._data.setsockopt(zmq.SUBSCRIBE, ("bus/hwm/" + topic).encode())

    def _decode(self, topic, payload, decode):
        """The checks of bus::Node::Dispatch that Python can make (the broker has verified the buffer), then the
        sequence bookkeeping: a gap is counted, a repeat (latched re-send) is skipped."""
        if len(payload) > schema.MAX_PAYLOAD_BYTES:
            self.drops[topic]["oversize"] += 1
            return None
        type_name = schema.BY_IDENTIFIER.get(schema.identifier_of(payload))
        if type_name is None:
            self.drops[topic]["wrong_type"] += 1
            return None
        conventional = schema.conventional_type(topic)
        if conventional is not None and conventional != type_name:
            self.drops[topic]["wrong_type"] += 1
            return None
        try:
            header = schema.decode_header(payload, type_name)
            data = schema.decode(payload, type_name) if decode else None
        except Exception:  # a damaged buffer: Python's generated code has no verifier
            self.drops[topic]["malformed"] += 1
            return None
        if header is None or header.source is None:
            self.drops[topic]["malformed"] += 1
            return None
        key = (topic, header.source)
        incarnation, last = self._sources.get(key, (None, 0))
        if incarnation != header.incarnation:
            self._sources[key] = (header.incarnation, header.seq)
        elif header.seq <= last:
            self.drops[topic]["duplicates"] += 1
            return None
        else:
            if header.seq > last + 1:
                self.drops[topic]["gap"] += header.seq - last - 1
            self._sources[key] = (incarnation, header.seq)
        self.received[topic] += 1
        return Message(topic, type_name, header, data, bytes(payload))

    # --- the broker's view ------------------------------------------------------------------------------------

    def stats(self, timeout=3.0):
        """The broker's next bus/stats (BusStats: per topic its type, messages, bytes and drops by reason)."""
        return self.receive("bus/stats", timeout=timeout).data

    def topics(self, timeout=3.0):
        """{topic: TopicStats Record} from the broker's next bus/stats."""
        return {t.topic: t for t in self.stats(timeout).topics}

    # --- parameters -------------------------------------------------------------------------------------------

    def param_get(self, service, name=None, timeout=3.0):
        """A running service's settings (`limbic param get`): a list of Records (name, value, type, doc, kind
        "live"|"option", range), or the one named. Raises ParamError for an unknown name, BusError if the service
        is not on the bus, Timeout if it does not answer."""
        values = self._param(service, name or "", None, timeout)
        return values[0] if name else values

    def param_set(self, service, name, value, timeout=3.0):
        """Changes a live parameter (`limbic param set`); returns the value now in effect, as the service reports
        it (a string). `value` is YAML text or a Python bool/number/list. Raises ParamError with the service's
        reason when it refuses (invalid value, out of range, a start-up option)."""
        return self._param(service, name, _yaml_scalar(value), timeout)[0].value

    def _param(self, service, name, value, timeout):
        if f"health/{service}" not in self.topics(timeout):
            raise BusError(f"no service '{service}' on the bus (no heartbeat on health/{service})")
        request_id = random.getrandbits(63)
        reply_topic = f"param/{service}/reply"
        sub = self._subscribe(reply_topic)
        try:
            deadline = time.monotonic() + timeout
            while time.monotonic() < deadline:
                self.publish(f"param/{service}", {"request_id": request_id, "name": name, "value": value or "",
                                                  "set": value is not None})
                retry = min(deadline, time.monotonic() + 0.5)
                while time.monotonic() < retry:
                    m = self._next(sub, retry - time.monotonic(), True)
                    if m is None or m.data.request_id != request_id:
                        continue
                    if not m.data.ok:
                        raise ParamError(f"{service}: {m.data.error or 'refused'}")
                    return m.data["values"]
            raise Timeout(f"no reply from '{service}' within {timeout:g} s")
        finally:
            self._unsubscribe(reply_topic)


def _yaml_scalar(value):
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_yaml_scalar(v) for v in value) + "]"
    return str(value)
