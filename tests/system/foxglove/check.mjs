// Foxglove's own client (@foxglove/ws-protocol) against a running limbic-foxglove bridge.
//   node check.mjs ws://127.0.0.1:PORT [--timeout S] [--no-slow]
// Checks, each with a clear failure message and exit 1:
//  1. serverInfo, then advertised channels: a native one (r1/odom, encoding flatbuffer, schema = base64 .bfbs)
//     and derived ones (foxglove/r1/tf FrameTransform, foxglove/r1/map Grid, JSON + jsonschema);
//  2. subscribed messages decode: the native one through its embedded binary schema (flatbuffers_reflection,
//     the reflection Foxglove itself uses), the derived ones as Foxglove-schema JSON;
//  3. client publishing: a NavGoal in JSON on a private topic comes back on the bus as a native channel;
//  4. a client that stops reading is disconnected by the bridge while the reading client keeps receiving.
import wsProtocol from "@foxglove/ws-protocol";
import { ByteBuffer } from "flatbuffers";
import reflection from "flatbuffers_reflection";
import WebSocket from "ws";

const { FoxgloveClient } = wsProtocol;
const { Parser, Schema, Table } = reflection;

const url = process.argv[2];
if (!url || !url.startsWith("ws://")) {
  console.error("usage: node check.mjs ws://HOST:PORT [--timeout S] [--no-slow]");
  process.exit(2);
}
const timeoutIdx = process.argv.indexOf("--timeout");
const timeoutS = timeoutIdx > 0 ? Number(process.argv[timeoutIdx + 1]) : 60;
const checkSlow = !process.argv.includes("--no-slow");

const fail = (msg) => {
  console.error(`FAIL: ${msg}`);
  process.exit(1);
};
setTimeout(() => fail(`not done within ${timeoutS} s; so far: ${JSON.stringify(progress)}`), timeoutS * 1000);
const progress = {};
const step = (name, value = true) => {
  progress[name] = value;
  console.log(`ok: ${name}${value === true ? "" : ` (${JSON.stringify(value)})`}`);
};
const connect = () =>
  new FoxgloveClient({ ws: new WebSocket(url, [FoxgloveClient.SUPPORTED_SUBPROTOCOL]) });

// Decodes a native message through the binary schema advertised with its channel.
function nativeDecoder(channel) {
  const schemaBytes = Uint8Array.from(Buffer.from(channel.schema, "base64"));
  const schema = Schema.getRootAsSchema(new ByteBuffer(schemaBytes));
  const parser = new Parser(schema);
  let index = -1;
  for (let i = 0; i < schema.objectsLength(); ++i) if (schema.objects(i).name() === channel.schemaName) index = i;
  if (index < 0) fail(`schema of ${channel.topic} has no type ${channel.schemaName}`);
  const toObject = parser.toObjectLambda(index, true);
  return (view) => {
    const bytes = new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
    return toObject(Table.getNamedTable(new ByteBuffer(bytes), schema, channel.schemaName));
  };
}

const channels = new Map(); // topic -> channel
const client = connect();
client.on("error", (e) => fail(`client error: ${e?.message ?? e}`));
client.on("close", (e) => {
  if (!progress.done) fail(`the reading client was disconnected (code ${e?.code})`);
});
client.on("serverInfo", (info) => step("serverInfo", { name: info.name, capabilities: info.capabilities }));
client.on("status", (s) => console.log(`status from bridge: level ${s.level}: ${s.message}`));

const wanted = {
  "r1/odom": { encoding: "flatbuffer", schemaName: "limbic.msg.Odometry" },
  "foxglove/r1/tf": { encoding: "json", schemaName: "foxglove.FrameTransform" },
  "foxglove/r1/map": { encoding: "json", schemaName: "foxglove.Grid" },
};
const decoders = new Map(); // subscription id -> (channel, decode)
const received = {};
let subscribed = false;
let slowStarted = false;
let publishTopic = `foxglove_check/goal_${process.pid}`;
let published = false;
let receivedAfterSlowDrop = 0;
let slowDropped = false;

client.on("advertise", (list) => {
  for (const c of list) channels.set(c.topic, c);
  for (const [topic, w] of Object.entries(wanted)) {
    const c = channels.get(topic);
    if (!c || decoders.has(topic)) continue;
    if (c.encoding !== w.encoding || c.schemaName !== w.schemaName) {
      fail(`${topic}: advertised as ${c.encoding}/${c.schemaName}, expected ${w.encoding}/${w.schemaName}`);
    }
    const decode =
      c.encoding === "flatbuffer" ? nativeDecoder(c) : (view) => JSON.parse(Buffer.from(view.buffer, view.byteOffset, view.byteLength).toString());
    const id = client.subscribe(c.id);
    decoders.set(topic, true);
    decoders.set(id, { channel: c, decode });
    step(`subscribed ${topic}`, { channel: c.id, schemaEncoding: c.schemaEncoding });
  }
  const back = channels.get(publishTopic);
  if (back && !decoders.has(publishTopic)) {
    const id = client.subscribe(back.id);
    decoders.set(publishTopic, true);
    decoders.set(id, { channel: back, decode: nativeDecoder(back) });
  }
  subscribed = Object.keys(wanted).every((t) => decoders.has(t));
});

client.on("message", ({ subscriptionId, data }) => {
  const d = decoders.get(subscriptionId);
  if (!d) return;
  const topic = d.channel.topic;
  if (slowDropped) receivedAfterSlowDrop++;
  if (received[topic]) return;
  const msg = d.decode(data);
  if (topic === "r1/odom") {
    const id = Buffer.from(data.buffer, data.byteOffset + 4, 4).toString();
    if (id !== "ODOM") fail(`r1/odom: file identifier '${id}'`);
    if (!Number.isFinite(msg.pose?.x) || !Number.isFinite(msg.v)) fail(`r1/odom decoded badly: ${JSON.stringify(msg)}`);
    if (!String(msg.header?.source ?? "").includes("hwio")) fail(`r1/odom: header.source '${msg.header?.source}'`);
    step("decoded native r1/odom through its schema", { x: msg.pose.x, source: msg.header.source, bytes: data.byteLength });
  } else if (topic === "foxglove/r1/tf") {
    if (msg.parent_frame_id !== "world" || msg.child_frame_id !== "r1/base_link") fail(`tf frames ${JSON.stringify(msg)}`);
    const q = msg.rotation;
    const norm = Math.hypot(q.x, q.y, q.z, q.w);
    if (Math.abs(norm - 1) > 1e-6) fail(`tf rotation not a unit quaternion: ${JSON.stringify(q)}`);
    step("decoded derived foxglove/r1/tf", { x: msg.translation.x, y: msg.translation.y });
  } else if (topic === "foxglove/r1/map") {
    const bytes = Buffer.from(msg.data, "base64");
    const rows = bytes.length / msg.row_stride;
    if (!Number.isInteger(rows) || rows < 1 || msg.cell_stride * msg.column_count !== msg.row_stride) {
      fail(`Grid layout: ${bytes.length} bytes, row_stride ${msg.row_stride}, cell_stride ${msg.cell_stride}`);
    }
    const p_o = msg.fields.find((f) => f.name === "p_o");
    if (!p_o || p_o.type !== 7) fail(`Grid fields ${JSON.stringify(msg.fields)}`);
    let inRange = 0;
    for (let i = 0; i < bytes.length; i += msg.cell_stride) {
      const v = bytes.readFloatLE(i + p_o.offset);
      if (v >= 0 && v <= 1) inRange++;
    }
    if (inRange !== rows * msg.column_count) fail(`Grid p_o outside [0, 1] in ${rows * msg.column_count - inRange} cells`);
    step("decoded derived foxglove/r1/map", { columns: msg.column_count, rows });
  } else if (topic === publishTopic) {
    if (!msg.active || msg.goal?.x !== 1.5 || msg.instruction_id !== 4242n && msg.instruction_id !== 4242) {
      fail(`published goal came back as ${JSON.stringify(msg, (k, v) => (typeof v === "bigint" ? Number(v) : v))}`);
    }
    step("client publishing: goal came back over the bus");
  }
  received[topic] = true;
});

// Client publishing once subscriptions are in place.
const publishTimer = setInterval(() => {
  if (!subscribed || published) return;
  published = true;
  const channelId = client.advertise({ topic: publishTopic, encoding: "json", schemaName: "limbic.msg.NavGoal" });
  let tries = 0;
  const send = setInterval(() => {
    if (received[publishTopic] || ++tries > 40) return clearInterval(send);
    client.sendMessage(channelId, new TextEncoder().encode(JSON.stringify({ active: true, goal: { x: 1.5, y: 2 }, instruction_id: 4242 })));
  }, 250);
}, 100);

// The slow client: subscribes to every channel, then stops reading its socket.
function startSlowClient() {
  slowStarted = true;
  const slowWs = new WebSocket(url, [FoxgloveClient.SUPPORTED_SUBPROTOCOL]);
  const slow = new FoxgloveClient({ ws: slowWs });
  const started = Date.now();
  slow.on("advertise", (list) => {
    for (const c of list) slow.subscribe(c.id);
    setTimeout(() => {
      slowWs._socket.pause(); // stops reading: the kernel buffers, then the bridge's queue, fill up
      console.log("slow client: stopped reading");
      // A paused socket cannot notice that the bridge closed it; read again after a while and the
      // close must be there (had the bridge kept it, it would now catch up and stay open).
      setTimeout(() => {
        console.log("slow client: reading again");
        slowWs._socket.resume();
      }, 8000);
    }, 200);
  });
  slowWs.on("close", (code) => {
    slowDropped = true;
    step("slow client dropped by the bridge", { code, after_s: (Date.now() - started) / 1000 });
  });
}

const doneTimer = setInterval(() => {
  const allDecoded = Object.keys(wanted).every((t) => received[t]) && received[publishTopic];
  if (allDecoded && checkSlow && !slowStarted) startSlowClient();
  if (!allDecoded) return;
  if (checkSlow && !(slowDropped && receivedAfterSlowDrop >= 5)) return;
  if (checkSlow) step("reading client still served after the drop", { messages: receivedAfterSlowDrop });
  progress.done = true;
  clearInterval(doneTimer);
  clearInterval(publishTimer);
  console.log("PASS");
  process.exit(0);
}, 100);
