// Interoperability of limbic's MCAP files with the reference TypeScript implementation (@mcap/core).
//
//   node interop.js check FILE...        every file: CRCs (chunks, data section, summary), every message
//                                        through the indexed and the streaming reader, each message
//                                        decoded through the binary FlatBuffers schema its Schema record holds;
//                                        derived Foxglove channels (`limbic record --derived`: schema encoding
//                                        jsonschema, message encoding json) parsed and checked against the
//                                        JSON Schema their Schema record holds
//   node interop.js rewrite IN OUT       writes OUT with @mcap/core's McapWriter (chunked, uncompressed),
//                                        holding IN's schemas, channels and messages, for limbic to read
//
// Prints one JSON line per file and exits non-zero on the first failure, with the reason.
"use strict";
const fs = require("fs");
const { McapIndexedReader, McapStreamReader, McapWriter } = require("@mcap/core");
const fzstd = require("fzstd");
const lz4 = require("lz4js");

const decompressHandlers = {
  zstd: (data, size) => fzstd.decompress(data, new Uint8Array(Number(size))),
  lz4: (data, size) => {
    const out = new Uint8Array(Number(size));
    const n = lz4.decompressFrame(data, out);  // an LZ4 frame, as the spec requires
    if (n !== Number(size)) throw new Error(`lz4 gave ${n} bytes, chunk says ${size}`);
    return out;
  },
};

// CRC-32 (IEEE), byte-wise: Debian 12's node 18 has no zlib.crc32.
const kCrcTable = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();
function crc32(bytes) {
  let c = 0xffffffff;
  for (let i = 0; i < bytes.length; i++) c = kCrcTable[(c ^ bytes[i]) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function fail(message) {
  console.error(`interop: ${message}`);
  process.exit(1);
}

// --- A minimal reader of FlatBuffers reflection (reflection.fbs) and of tables it describes. ---
const BaseType = { None: 0, UType: 1, Bool: 2, Byte: 3, UByte: 4, Short: 5, UShort: 6, Int: 7, UInt: 8, Long: 9,
  ULong: 10, Float: 11, Double: 12, String: 13, Vector: 14, Obj: 15, Union: 16, Array: 17 };

class Buf {
  constructor(bytes) {
    this.b = bytes;
    this.v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }
  u8(p) { return this.v.getUint8(p); }
  i32(p) { return this.v.getInt32(p, true); }
  u32(p) { return this.v.getUint32(p, true); }
  u16(p) { return this.v.getUint16(p, true); }
  root() { return this.u32(0); }
  // Position of field `id`'s value in the table at `t`, or 0 if absent.
  field(t, id) {
    const vt = t - this.i32(t);
    const vo = 4 + 2 * id;
    if (vo >= this.u16(vt)) return 0;
    const off = this.u16(vt + vo);
    return off ? t + off : 0;
  }
  ref(p) { return p + this.u32(p); }
  str(p) {
    const s = this.ref(p);
    return Buffer.from(this.b.buffer, this.b.byteOffset + s + 4, this.u32(s)).toString("utf8");
  }
  vec(p) {
    const v = this.ref(p);
    return { len: this.u32(v), start: v + 4 };
  }
  scalar(p, type) {
    switch (type) {
      case BaseType.Bool: case BaseType.UByte: case BaseType.UType: return this.v.getUint8(p);
      case BaseType.Byte: return this.v.getInt8(p);
      case BaseType.Short: return this.v.getInt16(p, true);
      case BaseType.UShort: return this.v.getUint16(p, true);
      case BaseType.Int: return this.v.getInt32(p, true);
      case BaseType.UInt: return this.v.getUint32(p, true);
      case BaseType.Long: return this.v.getBigInt64(p, true);
      case BaseType.ULong: return this.v.getBigUint64(p, true);
      case BaseType.Float: return this.v.getFloat32(p, true);
      case BaseType.Double: return this.v.getFloat64(p, true);
      default: throw new Error(`not a scalar: base type ${type}`);
    }
  }
}

const kScalarSize = { 2: 1, 3: 1, 4: 1, 1: 1, 5: 2, 6: 2, 7: 4, 8: 4, 9: 8, 10: 8, 11: 4, 12: 8 };

// Schema (reflection.fbs): objects = field 0. Object: name 0, fields 1, is_struct 2, bytesize 4.
// Field: name 0, type 1, id 2, offset 3, default_integer 4, default_real 5.
// Type: base_type 0, element 1, index 2.
function loadSchema(bytes) {
  const s = new Buf(bytes);
  const root = s.root();
  const objectsField = s.field(root, 0);
  if (!objectsField) throw new Error("binary schema has no objects");
  const objects = [];
  const vec = s.vec(objectsField);
  for (let i = 0; i < vec.len; i++) {
    const o = s.ref(vec.start + 4 * i);
    const fields = [];
    const fv = s.vec(s.field(o, 1));
    for (let j = 0; j < fv.len; j++) {
      const f = s.ref(fv.start + 4 * j);
      const t = s.ref(s.field(f, 1));
      const idAt = s.field(f, 2), offAt = s.field(f, 3), bt = s.field(t, 0), el = s.field(t, 1), ix = s.field(t, 2);
      fields.push({
        name: s.str(s.field(f, 0)),
        id: idAt ? s.u16(idAt) : 0,
        offset: offAt ? s.u16(offAt) : 0,
        base: bt ? s.u8(bt) : 0,
        element: el ? s.u8(el) : 0,
        index: ix ? s.i32(ix) : -1,
      });
    }
    const isStructAt = s.field(o, 2);
    objects.push({ name: s.str(s.field(o, 0)), fields, isStruct: isStructAt ? s.u8(isStructAt) === 1 : false });
  }
  return objects;
}

// Decodes the table at `t` as object `obj` into a plain JS object (unions and arrays are skipped).
function decodeTable(buf, t, obj, objects, depth) {
  if (depth > 32) throw new Error("nesting too deep");
  const out = {};
  for (const f of obj.fields) {
    const p = obj.isStruct ? t + f.offset : buf.field(t, f.id);
    if (!p) continue;
    if (kScalarSize[f.base]) out[f.name] = buf.scalar(p, f.base);
    else if (f.base === BaseType.String) out[f.name] = buf.str(p);
    else if (f.base === BaseType.Obj) {
      const sub = objects[f.index];
      out[f.name] = decodeTable(buf, sub.isStruct ? p : buf.ref(p), sub, objects, depth + 1);
    } else if (f.base === BaseType.Vector) {
      const v = buf.vec(p);
      const items = [];
      for (let i = 0; i < v.len; i++) {
        if (kScalarSize[f.element]) items.push(buf.scalar(v.start + i * kScalarSize[f.element], f.element));
        else if (f.element === BaseType.String) items.push(buf.str(v.start + 4 * i));
        else if (f.element === BaseType.Obj) {
          const sub = objects[f.index];
          if (sub.isStruct) break;  // struct vectors need the struct's byte size; not used by the check
          items.push(decodeTable(buf, buf.ref(v.start + 4 * i), sub, objects, depth + 1));
        }
      }
      out[f.name] = items;
    }
  }
  return out;
}

// Checks a parsed JSON value against the subset of JSON Schema the derived channels use (type, properties,
// items, contentEncoding base64); returns the first mismatch as "path: what", or null.
function checkJson(value, schema, path) {
  const t = schema.type;
  const typeOk = {
    object: () => value !== null && typeof value === "object" && !Array.isArray(value),
    array: () => Array.isArray(value),
    string: () => typeof value === "string",
    number: () => typeof value === "number" && Number.isFinite(value),
    integer: () => Number.isInteger(value),
    boolean: () => typeof value === "boolean",
  }[t];
  if (t !== undefined && (!typeOk || !typeOk())) return `${path}: expected ${t}, got ${JSON.stringify(value)?.slice(0, 40)}`;
  if (t === "string" && schema.contentEncoding === "base64" && !/^[A-Za-z0-9+/]*={0,2}$/.test(value)) {
    return `${path}: not base64`;
  }
  if (t === "object" && schema.properties) {
    for (const [k, v] of Object.entries(value)) {
      if (!(k in schema.properties)) return `${path}.${k}: not in the schema`;
      const e = checkJson(v, schema.properties[k], `${path}.${k}`);
      if (e) return e;
    }
  }
  if (t === "array" && schema.items) {
    for (let i = 0; i < value.length; i++) {
      const e = checkJson(value[i], schema.items, `${path}[${i}]`);
      if (e) return e;
    }
  }
  return null;
}

function readable(bytes) {
  return {
    size: async () => BigInt(bytes.length),
    read: async (offset, size) => bytes.subarray(Number(offset), Number(offset + size)),
  };
}

async function check(file) {
  const bytes = new Uint8Array(fs.readFileSync(file));
  const reader = await McapIndexedReader.Initialize({ readable: readable(bytes), decompressHandlers });
  // Summary CRC: from the summary start through the footer's summary_offset_start field.
  const footerAt = bytes.length - 8 - 29;
  if (reader.footer.summaryCrc !== 0) {
    const crc = crc32(bytes.subarray(Number(reader.footer.summaryStart), footerAt + 1 + 8 + 16));
    if (crc !== reader.footer.summaryCrc) fail(`${file}: summary CRC ${crc} != footer's ${reader.footer.summaryCrc}`);
  }
  // Data section CRC: every byte before the DataEnd record.
  if (reader.dataSectionCrc) {
    const crc = crc32(bytes.subarray(0, Number(reader.dataEndOffset)));
    if (crc !== reader.dataSectionCrc) fail(`${file}: data section CRC ${crc} != DataEnd's ${reader.dataSectionCrc}`);
  } else {
    fail(`${file}: no data section CRC`);
  }
  const schemas = new Map();
  for (const [id, schema] of reader.schemasById) {
    if (schema.encoding === "jsonschema") {
      // A derived Foxglove channel: the JSON Schema of a foxglove.* type, as Foxglove reads it.
      if (!schema.name.startsWith("foxglove.")) fail(`${file}: jsonschema ${schema.name} is no Foxglove schema`);
      schemas.set(id, { json: JSON.parse(new TextDecoder().decode(schema.data)), name: schema.name });
      continue;
    }
    if (schema.encoding !== "flatbuffer") fail(`${file}: schema ${schema.name} has encoding '${schema.encoding}'`);
    const objects = loadSchema(schema.data);
    const obj = objects.find((o) => o.name === schema.name);
    if (!obj) fail(`${file}: schema ${schema.name}: its binary schema does not define that type`);
    schemas.set(id, { objects, obj, headerIndex: obj.fields.find((f) => f.name === "header")?.index });
  }
  let indexed = 0, decoded = 0;
  const derived = {}, derivedTopics = new Set();
  const compressions = new Set(reader.chunkIndexes.map((c) => c.compression || "none"));
  for await (const m of reader.readMessages({ validateCrcs: true })) {
    indexed++;
    const channel = reader.channelsById.get(m.channelId);
    const js = schemas.get(channel.schemaId);
    if (js && js.json) {
      if (channel.messageEncoding !== "json") fail(`${file}: ${channel.topic}: jsonschema with encoding ${channel.messageEncoding}`);
      const value = JSON.parse(new TextDecoder().decode(m.data));
      const e = checkJson(value, js.json, channel.topic);
      if (e) fail(`${file}: ${e}`);
      if (!value.timestamp && !value.entities) fail(`${file}: ${channel.topic}: neither timestamp nor entities`);
      derived[js.name] = (derived[js.name] || 0) + 1;
      derivedTopics.add(channel.topic);
      decoded++;
      continue;
    }
    if (channel.messageEncoding !== "flatbuffer") fail(`${file}: channel ${channel.topic} encoding ${channel.messageEncoding}`);
    const s = schemas.get(channel.schemaId);
    const buf = new Buf(m.data);
    const msg = decodeTable(buf, buf.root(), s.obj, s.objects, 0);
    // Every limbic message starts with its Header: its seq is the record's sequence, its stamp the
    // publish time (when it has one).
    const h = msg.header;
    if (!h || typeof h.source !== "string") fail(`${file}: ${channel.topic}: message without a decodable header`);
    if (Number(BigInt.asUintN(32, BigInt(h.seq ?? 0))) !== m.sequence) {
      fail(`${file}: ${channel.topic}: header seq ${h.seq} != record sequence ${m.sequence}`);
    }
    if ((h.stamp_ns ?? 0n) > 0n && BigInt(h.stamp_ns) !== m.publishTime) {
      fail(`${file}: ${channel.topic}: header stamp ${h.stamp_ns} != publish time ${m.publishTime}`);
    }
    decoded++;
  }
  const expected = reader.statistics ? Number(reader.statistics.messageCount) : -1;
  if (indexed !== expected) fail(`${file}: indexed reader read ${indexed} messages, statistics say ${expected}`);
  // The streaming reader walks the file record by record, checking chunk CRCs on the way.
  const stream = new McapStreamReader({ decompressHandlers, validateCrcs: true });
  stream.append(bytes);
  let streamed = 0, sawFooter = false;
  for (let r; (r = stream.nextRecord());) {
    if (r.type === "Message") streamed++;
    if (r.type === "Footer") sawFooter = true;
  }
  if (!stream.done() || !sawFooter) fail(`${file}: streaming reader did not reach the footer`);
  if (streamed !== indexed) fail(`${file}: streaming reader read ${streamed} messages, indexed ${indexed}`);
  console.log(JSON.stringify({ file, messages: indexed, decoded, chunks: reader.chunkIndexes.length,
    compression: [...compressions], schemas: reader.schemasById.size, channels: reader.channelsById.size,
    ...(Object.keys(derived).length ? { derived, derivedTopics: [...derivedTopics].sort() } : {}) }));
}

async function rewrite(input, output) {
  const bytes = new Uint8Array(fs.readFileSync(input));
  const reader = await McapIndexedReader.Initialize({ readable: readable(bytes), decompressHandlers });
  const fd = fs.openSync(output, "w");
  let position = 0n;
  const writer = new McapWriter({
    chunkSize: 64 * 1024,
    writable: {
      position: () => position,
      write: async (buffer) => {
        fs.writeSync(fd, buffer);
        position += BigInt(buffer.byteLength);
      },
    },
  });
  await writer.start({ profile: "", library: "mcap-interop-test" });
  const schemaIds = new Map(), channelIds = new Map();
  for (const [id, s] of reader.schemasById) {
    schemaIds.set(id, await writer.registerSchema({ name: s.name, encoding: s.encoding, data: s.data }));
  }
  for (const [id, c] of reader.channelsById) {
    channelIds.set(id, await writer.registerChannel({ topic: c.topic, schemaId: schemaIds.get(c.schemaId),
      messageEncoding: c.messageEncoding, metadata: c.metadata }));
  }
  let n = 0;
  for await (const m of reader.readMessages()) {
    await writer.addMessage({ ...m, channelId: channelIds.get(m.channelId) });
    n++;
  }
  await writer.end();
  fs.closeSync(fd);
  console.log(JSON.stringify({ wrote: output, messages: n }));
}

(async () => {
  const [command, ...args] = process.argv.slice(2);
  if (command === "check" && args.length > 0) {
    for (const file of args) await check(file);
  } else if (command === "rewrite" && args.length === 2) {
    await rewrite(args[0], args[1]);
  } else {
    fail("usage: node interop.js check FILE... | rewrite IN OUT");
  }
})().catch((e) => fail(e.stack || String(e)));
