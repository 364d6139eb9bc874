#include "tests/fuzz/fuzz_support.hpp"

#include <flatbuffers/reflection.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace limbic::fuzz {
namespace {

const reflection::Schema& Schema() {
  static const reflection::Schema* schema = [] {
    const auto bfbs = messages::BinarySchema();
    flatbuffers::Verifier verifier(bfbs.data(), bfbs.size());
    if (!reflection::VerifySchemaBuffer(verifier)) {
      std::fprintf(stderr, "fuzz: the embedded binary schema does not verify\n");
      std::abort();
    }
    return reflection::GetSchema(bfbs.data());
  }();
  return *schema;
}

const reflection::Object& ObjectFor(const messages::MessageType& type) {
  const reflection::Object* object = Schema().objects()->LookupByKey(type.name);
  if (object == nullptr) {
    std::fprintf(stderr, "fuzz: the binary schema has no type %s\n", type.name);
    std::abort();
  }
  return *object;
}

uint64_t Mix(uint64_t h, uint64_t v) { return (h ^ v) * 0x100000001b3ull + (h >> 29); }

template <typename T>
uint64_t Bits(const uint8_t* p) {
  const T value = flatbuffers::ReadScalar<T>(p);  // a typed read, so UBSan checks its alignment
  uint64_t bits = 0;
  std::memcpy(&bits, &value, sizeof(T));
  return bits;
}

uint64_t ReadScalarAt(reflection::BaseType type, const uint8_t* p) {
  switch (type) {
    case reflection::UType:
    case reflection::Bool:
    case reflection::UByte:
      return Bits<uint8_t>(p);
    case reflection::Byte:
      return Bits<int8_t>(p);
    case reflection::Short:
      return Bits<int16_t>(p);
    case reflection::UShort:
      return Bits<uint16_t>(p);
    case reflection::Int:
      return Bits<int32_t>(p);
    case reflection::UInt:
      return Bits<uint32_t>(p);
    case reflection::Long:
      return Bits<int64_t>(p);
    case reflection::ULong:
      return Bits<uint64_t>(p);
    case reflection::Float:
      return Bits<float>(p);
    case reflection::Double:
      return Bits<double>(p);
    default:
      std::abort();  // not a scalar: a bug in the walker
  }
}

uint64_t WalkString(const flatbuffers::String* s) {
  uint64_t h = s->size();
  for (uint8_t c : *s) h = Mix(h, c);
  // The verifier guarantees the terminator: consumers call c_str().
  if (s->c_str()[s->size()] != '\0') std::abort();
  return h;
}

uint64_t WalkStruct(const reflection::Object& object, const uint8_t* p) {
  uint64_t h = 0;
  for (const reflection::Field* field : *object.fields()) {
    const uint8_t* at = p + field->offset();
    const reflection::BaseType bt = field->type()->base_type();
    if (bt == reflection::Obj) {
      h = Mix(h, WalkStruct(*Schema().objects()->Get(field->type()->index()), at));
    } else if (bt == reflection::Array) {
      const reflection::BaseType et = field->type()->element();
      const size_t n = field->type()->fixed_length();
      if (et == reflection::Obj) {
        const auto& sub = *Schema().objects()->Get(field->type()->index());
        for (size_t i = 0; i < n; ++i) h = Mix(h, WalkStruct(sub, at + i * sub.bytesize()));
      } else {
        for (size_t i = 0; i < n; ++i) h = Mix(h, ReadScalarAt(et, at + i * flatbuffers::GetTypeSize(et)));
      }
    } else {
      h = Mix(h, ReadScalarAt(bt, at));
    }
  }
  return h;
}

uint64_t WalkTable(const reflection::Object& object, const flatbuffers::Table& table) {
  uint64_t h = 0;
  for (const reflection::Field* field : *object.fields()) {
    // A deprecated field has no accessor and the generated Verifier does not check it: no consumer can read
    // it, so neither may this walk (Bumpers.contact_point, deprecated in issue 14, pointed past the buffer).
    if (field->deprecated()) continue;
    const auto off = field->offset();
    const uint8_t* at = table.GetAddressOf(off);
    if (at == nullptr) continue;  // absent: the consumer sees the default
    const reflection::BaseType bt = field->type()->base_type();
    if (flatbuffers::IsScalar(bt)) {
      h = Mix(h, ReadScalarAt(bt, at));
      continue;
    }
    switch (bt) {
      case reflection::String:
        h = Mix(h, WalkString(table.GetPointer<const flatbuffers::String*>(off)));
        break;
      case reflection::Obj: {
        const auto& sub = *Schema().objects()->Get(field->type()->index());
        h = Mix(h, sub.is_struct() ? WalkStruct(sub, at)
                                   : WalkTable(sub, *table.GetPointer<const flatbuffers::Table*>(off)));
        break;
      }
      case reflection::Vector: {
        const auto* v = table.GetPointer<const flatbuffers::VectorOfAny*>(off);
        const reflection::BaseType et = field->type()->element();
        const size_t n = v->size();
        h = Mix(h, n);
        if (flatbuffers::IsScalar(et)) {
          const size_t stride = flatbuffers::GetTypeSize(et);
          for (size_t i = 0; i < n; ++i) h = Mix(h, ReadScalarAt(et, v->Data() + i * stride));
        } else if (et == reflection::String) {
          for (size_t i = 0; i < n; ++i) {
            h = Mix(h, WalkString(flatbuffers::GetAnyVectorElemPointer<const flatbuffers::String>(v, i)));
          }
        } else if (et == reflection::Obj) {
          const auto& sub = *Schema().objects()->Get(field->type()->index());
          for (size_t i = 0; i < n; ++i) {
            h = Mix(h, sub.is_struct()
                           ? WalkStruct(sub, v->Data() + i * sub.bytesize())
                           : WalkTable(sub, *flatbuffers::GetAnyVectorElemPointer<const flatbuffers::Table>(v, i)));
          }
        }
        break;
      }
      default:
        break;  // unions: none in the limbic schema
    }
  }
  return h;
}

// --- JSON generation (seeds) ---

void AppendValue(std::string* out, const reflection::Type& type, reflection::BaseType bt, int depth);

void AppendObject(std::string* out, const reflection::Object& object, int depth, const std::string& header_json) {
  *out += "{";
  bool first = true;
  for (const reflection::Field* field : *object.fields()) {
    if (field->deprecated()) continue;
    const reflection::BaseType bt = field->type()->base_type();
    if (bt == reflection::UType || bt == reflection::Union) continue;
    const bool is_header = depth == 0 && field->name()->str() == "header";
    if (is_header && header_json.empty()) continue;
    if (!first) *out += ", ";
    first = false;
    *out += "\"" + field->name()->str() + "\": ";
    if (is_header) {
      *out += header_json;
    } else {
      AppendValue(out, *field->type(), bt, depth + 1);
    }
  }
  *out += "}";
}

void AppendValue(std::string* out, const reflection::Type& type, reflection::BaseType bt, int depth) {
  const auto& schema = Schema();
  if (flatbuffers::IsInteger(bt) && type.index() >= 0) {
    const auto* values = schema.enums()->Get(type.index())->values();
    *out += "\"" + values->Get(values->size() - 1)->name()->str() + "\"";
    return;
  }
  switch (bt) {
    case reflection::Bool:
      *out += "true";
      return;
    case reflection::Float:
    case reflection::Double:
      *out += "1.5";
      return;
    case reflection::String:
      *out += "\"ab\"";
      return;
    case reflection::Obj: {
      const auto& sub = *schema.objects()->Get(type.index());
      if (!sub.is_struct() && depth > 4) {
        *out += "{}";
      } else {
        AppendObject(out, sub, depth, "");
      }
      return;
    }
    case reflection::Vector:
    case reflection::Array: {
      const size_t n = bt == reflection::Array ? type.fixed_length() : 2;
      *out += "[";
      for (size_t i = 0; i < n; ++i) {
        if (i > 0) *out += ", ";
        AppendValue(out, type, type.element(), depth);
      }
      *out += "]";
      return;
    }
    default:
      if (flatbuffers::IsInteger(bt)) {
        *out += "2";
        return;
      }
      std::abort();
  }
}

}  // namespace

uint64_t WalkVerified(const messages::MessageType& type, const uint8_t* data, size_t size) {
  (void)size;
  return WalkTable(ObjectFor(type), *flatbuffers::GetAnyRoot(data));
}

uint64_t WalkHeader(const uint8_t* verified_data) {
  const msg::Header* header = messages::HeaderOf(verified_data);
  if (header == nullptr) return 0;
  uint64_t h = Mix(static_cast<uint64_t>(header->stamp_ns()), static_cast<uint64_t>(header->tick()));
  h = Mix(h, header->seq());
  h = Mix(h, header->incarnation());
  h = Mix(h, header->latched());
  if (header->source() != nullptr) h = Mix(h, WalkString(header->source()));
  return h;
}

FrameInput DecodeFrames(const uint8_t* data, size_t size) {
  FrameInput input;
  if (size == 0) {
    input.frames.emplace_back();
    return input;
  }
  const size_t count = (data[0] & 3u) + 1;
  input.subscribe = (data[0] & 4u) != 0;
  size_t pos = 1;
  for (size_t i = 0; i + 1 < count; ++i) {
    size_t len = 0;
    if (pos + 2 <= size) {
      len = data[pos] | (static_cast<size_t>(data[pos + 1]) << 8);
      pos += 2;
    } else {
      pos = size;
    }
    len = std::min(len, size - pos);
    input.frames.emplace_back(data + pos, len);
    pos += len;
  }
  input.frames.emplace_back(data + pos, size - pos);
  return input;
}

std::vector<uint8_t> EncodeFrames(const std::vector<std::vector<uint8_t>>& frames, bool subscribe) {
  if (frames.empty() || frames.size() > 4) std::abort();
  std::vector<uint8_t> out{static_cast<uint8_t>((frames.size() - 1) | (subscribe ? 4u : 0u))};
  for (size_t i = 0; i < frames.size(); ++i) {
    if (i + 1 < frames.size()) {
      if (frames[i].size() > 0xffff) std::abort();
      out.push_back(static_cast<uint8_t>(frames[i].size() & 0xff));
      out.push_back(static_cast<uint8_t>(frames[i].size() >> 8));
    }
    out.insert(out.end(), frames[i].begin(), frames[i].end());
  }
  return out;
}

std::string FullJson(const messages::MessageType& type, bool with_header, bool latched) {
  std::string header;
  if (with_header) {
    header = std::string("{\"stamp_ns\": 1000, \"tick\": 3, \"seq\": 1, \"source\": \"seed\", \"latched\": ") +
             (latched ? "true" : "false") + ", \"incarnation\": 7}";
  }
  std::string out;
  AppendObject(&out, ObjectFor(type), 0, header);
  return out;
}

}  // namespace limbic::fuzz
