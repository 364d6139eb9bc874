// Subscribes to every channel of a limbic-foxglove bridge and prints messages and bytes per second per channel
// (a stand-in for Foxglove with everything open; used for the bridge's CPU figure in the README).
//   node watch.mjs ws://127.0.0.1:8765 [SECONDS]
import wsProtocol from "@foxglove/ws-protocol";
import WebSocket from "ws";

const { FoxgloveClient } = wsProtocol;
const url = process.argv[2];
const seconds = Number(process.argv[3] ?? 30);
if (!url || !url.startsWith("ws://") || !(seconds > 0)) {
  console.error("usage: node watch.mjs ws://HOST:PORT [SECONDS]");
  process.exit(2);
}
const client = new FoxgloveClient({ ws: new WebSocket(url, [FoxgloveClient.SUPPORTED_SUBPROTOCOL]) });
const topicOf = new Map();
const counts = new Map();
client.on("error", (e) => {
  console.error(`error: ${e?.message ?? e}`);
  process.exit(1);
});
client.on("advertise", (list) => {
  for (const c of list) topicOf.set(client.subscribe(c.id), c.topic);
});
client.on("message", ({ subscriptionId, data }) => {
  const t = topicOf.get(subscriptionId);
  const c = counts.get(t) ?? { n: 0, bytes: 0 };
  c.n++;
  c.bytes += data.byteLength;
  counts.set(t, c);
});
setTimeout(() => {
  let n = 0, bytes = 0;
  for (const [t, c] of [...counts].sort()) {
    console.log(`${t.padEnd(32)} ${(c.n / seconds).toFixed(1).padStart(7)} msg/s ${(c.bytes / seconds / 1024).toFixed(1).padStart(8)} KiB/s`);
    n += c.n;
    bytes += c.bytes;
  }
  console.log(`${"total".padEnd(32)} ${(n / seconds).toFixed(1).padStart(7)} msg/s ${(bytes / seconds / 1024).toFixed(1).padStart(8)} KiB/s over ${counts.size} channels`);
  process.exit(0);
}, seconds * 1000);
