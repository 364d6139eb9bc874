#include "tests/testing/finite_scan.hpp"

#include <flatbuffers/reflection.h>

#include <cmath>

namespace limbic::testing {
namespace {

using reflection::BaseType;

bool IsFloat(BaseType t) { return t == BaseType::Float || t == BaseType::Double; }

class Scanner {
 public:
  explicit Scanner(const reflection::Schema& schema) : schema_(schema) {}

  std::string Table(const reflection::Object& object, const flatbuffers::Table& table, const std::string& path) {
    for (const reflection::Field* field : *object.fields()) {
      // Deprecated fields are not verified and have no accessor: nothing reads them, so neither may this.
      if (field->deprecated()) continue;
      const std::string name = path + "." + field->name()->str();
      const BaseType type = field->type()->base_type();
      if (IsFloat(type)) {
        if (!std::isfinite(flatbuffers::GetAnyFieldF(table, *field))) return name;
      } else if (type == BaseType::Obj) {
        const reflection::Object& sub = *schema_.objects()->Get(field->type()->index());
        if (sub.is_struct()) {
          const auto* s = table.GetStruct<const uint8_t*>(field->offset());
          if (s) {
            if (auto bad = Struct(sub, s, name); !bad.empty()) return bad;
          }
        } else if (const auto* t = table.GetPointer<const flatbuffers::Table*>(field->offset())) {
          if (auto bad = Table(sub, *t, name); !bad.empty()) return bad;
        }
      } else if (type == BaseType::Vector) {
        if (auto bad = Vector(table, *field, name); !bad.empty()) return bad;
      }
    }
    return "";
  }

 private:
  std::string Struct(const reflection::Object& object, const uint8_t* data, const std::string& path) {
    for (const reflection::Field* field : *object.fields()) {
      const BaseType type = field->type()->base_type();
      const uint8_t* at = data + field->offset();
      const std::string name = path + "." + field->name()->str();
      if (type == BaseType::Double && !std::isfinite(flatbuffers::ReadScalar<double>(at))) return name;
      if (type == BaseType::Float && !std::isfinite(flatbuffers::ReadScalar<float>(at))) return name;
      if (type == BaseType::Obj) {
        if (auto bad = Struct(*schema_.objects()->Get(field->type()->index()), at, name); !bad.empty()) return bad;
      }
    }
    return "";
  }

  std::string Vector(const flatbuffers::Table& table, const reflection::Field& field, const std::string& path) {
    const auto* vec = table.GetPointer<const flatbuffers::VectorOfAny*>(field.offset());
    if (vec == nullptr) return "";
    const BaseType element = field.type()->element();
    if (element == BaseType::Double) {
      const auto* v = reinterpret_cast<const flatbuffers::Vector<double>*>(vec);
      for (flatbuffers::uoffset_t i = 0; i < v->size(); ++i) {
        if (!std::isfinite(v->Get(i))) return path + "[" + std::to_string(i) + "]";
      }
    } else if (element == BaseType::Float) {
      const auto* v = reinterpret_cast<const flatbuffers::Vector<float>*>(vec);
      for (flatbuffers::uoffset_t i = 0; i < v->size(); ++i) {
        if (!std::isfinite(v->Get(i))) return path + "[" + std::to_string(i) + "]";
      }
    } else if (element == BaseType::Obj) {
      const reflection::Object& sub = *schema_.objects()->Get(field.type()->index());
      if (sub.is_struct()) {
        const auto* bytes = reinterpret_cast<const flatbuffers::Vector<uint8_t>*>(vec)->Data();
        for (flatbuffers::uoffset_t i = 0; i < vec->size(); ++i) {
          if (auto bad = Struct(sub, bytes + i * sub.bytesize(), path + "[" + std::to_string(i) + "]"); !bad.empty()) {
            return bad;
          }
        }
      } else {
        const auto* v = reinterpret_cast<const flatbuffers::Vector<flatbuffers::Offset<flatbuffers::Table>>*>(vec);
        for (flatbuffers::uoffset_t i = 0; i < v->size(); ++i) {
          if (auto bad = Table(sub, *v->Get(i), path + "[" + std::to_string(i) + "]"); !bad.empty()) return bad;
        }
      }
    }
    return "";
  }

  const reflection::Schema& schema_;
};

}  // namespace

std::string FindNonFinite(const messages::MessageType& type, const uint8_t* verified_data) {
  const reflection::Schema& schema = *reflection::GetSchema(messages::BinarySchema().data());
  const std::string name = type.name;
  const reflection::Object* object = schema.objects()->LookupByKey(name.c_str());
  if (object == nullptr) return name + ": not in the schema";
  return Scanner(schema).Table(*object, *flatbuffers::GetAnyRoot(verified_data), name.substr(11));
}

}  // namespace limbic::testing
