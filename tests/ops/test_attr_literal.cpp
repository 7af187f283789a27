// Attributes declared once (ops/attrs.hpp's AttrSchema): keywords, the
// literal parser shared by graph and rule files, printing, and the hash
// derived from the members of a struct-valued attribute.
#include "ops/attr_literal.hpp"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

using namespace eqsat::ops;

namespace {

constexpr int kNumKeys = static_cast<int>(AttrKey::Checkpoint) + 1;

SExpr read_one(const std::string& text) {
  std::vector<SExpr> read = read_sexprs(text, "<test>");
  REQUIRE(read.size() == 1);
  return read[0];
}

}  // namespace

TEST_CASE("every attribute keyword reads back as its key") {
  for (int k = 0; k < kNumKeys; ++k) {
    const auto key = static_cast<AttrKey>(k);
    CAPTURE(attr_key_name(key));
    CHECK(parse_attr_key(attr_key_name(key)) == key);
  }
  CHECK(attr_key_name(AttrKey::Inline) == "inline");  // the member is inline_
  CHECK(attr_key_name(AttrKey::Keepdims) == "keepdims");
  CHECK(!parse_attr_key("inline_"));
}

TEST_CASE("written attribute values print and parse back") {
  const std::vector<std::pair<AttrKey, AttrValue>> values = {
      {AttrKey::Axis, std::int64_t{-1}}, {AttrKey::Axis, IntList{0, 2}},
      {AttrKey::Keepdims, true},         {AttrKey::Shape, IntList{}},
      {AttrKey::Perm, IntList{1, 0}},    {AttrKey::Dtype, DType::F32},
      {AttrKey::Start, std::int64_t{3}}, {AttrKey::Index, std::int64_t{0}},
      {AttrKey::Inline, false},          {AttrKey::Checkpoint, std::int64_t{4}}};
  for (const auto& [key, value] : values) {
    const std::string text = attr_value_text(value);
    CAPTURE(attr_key_name(key), text);
    const auto back = parse_attr_literal(key, read_one(text));
    REQUIRE(back);
    CHECK(attr_value_equal(*back, value));
  }
}

TEST_CASE("a value of the wrong form is refused with the key's form") {
  CHECK(!parse_attr_literal(AttrKey::Keepdims, read_one("3")));
  CHECK(!parse_attr_literal(AttrKey::Shape, read_one("(1 x)")));
  CHECK(!parse_attr_literal(AttrKey::Dtype, read_one("f16")));
  CHECK(!parse_attr_literal(AttrKey::Start, read_one("1.5")));
  CHECK(attr_literal_form(AttrKey::Axis) == "an integer or a list of integers");
  CHECK(attr_literal_form(AttrKey::Keepdims) == "true or false");
  // Keys whose type has no literal form are internal.
  CHECK(!parse_attr_literal(AttrKey::Name, read_one("\"x\"")));
  CHECK(!parse_attr_literal(AttrKey::Scan, read_one("()")));
  CHECK(attr_literal_form(AttrKey::Value).starts_with("no value"));
}

TEST_CASE("a scan layout hashes and prints by its members") {
  ScanSpec base;
  base.sequence_taps = {{0}};
  base.num_sitsot = 1;
  base.keep = {0};
  const std::size_t h = attr_value_hash(base);
  CHECK(attr_value_hash(ScanSpec(base)) == h);
  // Changing any one member changes the hash: every member takes part.
  std::vector<ScanSpec> changed(8, base);
  changed[0].sequence_taps = {{0, 1}};
  changed[1].mitsot_taps = {{-1}};
  changed[2].num_sitsot = 2;
  changed[3].num_nitsot = 1;
  changed[4].num_nonsequences = 1;
  changed[5].has_n_steps = true;
  changed[6].until = true;
  changed[7].keep = {2};
  for (const ScanSpec& c : changed) {
    CHECK(attr_value_hash(c) != h);
    CHECK(!attr_value_equal(c, base));
  }
  CHECK(attr_value_text(base) ==
        "(:sequence-taps ((0)) :mitsot-taps () :num-sitsot 1 :num-nitsot 0 :num-nonsequences 0 "
        ":has-n-steps false :until false :keep (0))");
}
