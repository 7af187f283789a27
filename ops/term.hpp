// Term: an immutable, hash-consed node of a tensor graph — an op (kind plus
// attributes), operands and the type inferred for them. Building the same
// op with the same attributes and operands twice yields the same Term
// object, so terms compare by identity: two graphs are equal exactly when
// their outputs are the same terms, in O(1).
//
// Inner graphs (`fn` bodies of `scan` and `call`) are closed: they refer to
// their inputs only through `nominal(k, type)` leaves, the k-th parameter of
// the innermost enclosing `fn`. Parameter names are not part of a term, so
// alpha-equivalent bodies are the same Term.
//
//   TermRef x = Term::input("x", {DType::F64, {3}});
//   TermRef y = Term::make(OpKind::Exp, {}, {x});
//   assert(y == Term::make(OpKind::Exp, {}, {x}));
//
// Terms live as long as the process (the table is not thread-safe).
#pragma once

#include "attrs.hpp"
#include "op.hpp"
#include "type.hpp"

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace eqsat::ops {

class Term {
 public:
  // The unique term for this application. Checks arity, attributes and
  // types (throws TypeError) and canonicalizes the attributes first.
  static TermRef make(OpKind kind, Attrs attrs, std::vector<TermRef> operands);

  // Leaves.
  static TermRef input(const std::string& name, const TensorType& type);
  static TermRef nominal(std::int64_t slot, const TensorType& type);
  static TermRef constant(const Array& value);
  // A scalar constant of `dtype`.
  static TermRef scalar(DType dtype, double value);
  // A body: `outputs` over nominals for parameters of `params` types.
  static TermRef fn(std::vector<TensorType> params, std::vector<TermRef> outputs);

  OpKind kind() const { return kind_; }
  const OpInfo& info() const { return op_info(kind_); }
  const Attrs& attrs() const { return attrs_; }
  std::span<const TermRef> operands() const { return operands_; }
  TermRef operand(std::size_t i) const { return operands_[i]; }
  std::size_t arity() const { return operands_.size(); }
  const Type& type() const { return type_; }
  bool is_tuple() const { return std::holds_alternative<TupleType>(type_); }
  // The tensor type; the term must not be a tuple.
  const TensorType& tensor_type() const { return std::get<TensorType>(type_); }

  // The value of a Const term, or nullptr.
  const Array* const_value() const;
  // Slots of the nominals free in this term (sorted): those not bound by a
  // `fn` inside it.
  const std::vector<std::int64_t>& free_nominals() const { return free_nominals_; }
  // True when a graph input occurs in this term.
  bool uses_input() const { return uses_input_; }

  // Creation order: a stable, deterministic key for ordering terms.
  std::uint64_t id() const { return id_; }
  std::size_t hash() const { return hash_; }

  // Internal to the interning table.
  Term(OpKind kind, Attrs attrs, std::vector<TermRef> operands, Type type, std::size_t hash,
       std::uint64_t id);

 private:
  OpKind kind_;
  Attrs attrs_;
  std::vector<TermRef> operands_;
  Type type_;
  std::size_t hash_;
  std::uint64_t id_;
  std::vector<std::int64_t> free_nominals_;
  bool uses_input_ = false;
};

// Number of distinct terms built so far.
std::size_t num_terms();

}  // namespace eqsat::ops
