// `eqsat import MODEL.onnx [-o OUT.eg]`: reads an ONNX model (onnx/import.hpp)
// and prints it in the graph language, or writes it to OUT.eg. With -o, a
// constant of more than 16 elements is written to the side file
// `OUT.weights/K.npy` and read back by `(load "OUT.weights/K.npy")`; every
// file is checked before any work (none may be the model) and written
// atomically.
#include "command.hpp"
#include "onnx_module.hpp"
#include "output_paths.hpp"
#include "read_graph.hpp"

#include "onnx/import_error.hpp"
#include "ops/graph_printer.hpp"
#include "ops/npy.hpp"
#include "ops/output_file.hpp"

#include <filesystem>
#include <iostream>
#include <memory>

namespace eqsat::tools {

namespace {

struct ImportArgs {
  std::string model;
  std::string out;
};

int run_import(const ImportArgs& args) {
  onnx::ImportOptions options = import_options();
  std::filesystem::path side_dir;
  if (!args.out.empty()) {
    check_outputs({{"-o", args.out}}, {{"the model", args.model}});
    const std::filesystem::path out(args.out);
    const std::string stem = out.stem().string() + ".weights";
    options.side_dir = stem;
    side_dir = out.parent_path() / stem;
  }
  const onnx::ImportResult result = onnx_module().import_model(args.model, options);
  const std::string text = ops::print_graph(result.graph);
  if (args.out.empty()) {
    std::cout << text;
    return Success;
  }
  if (!result.side_files.empty()) {
    prepare_output_dir(side_dir.string(), "-o");
    std::vector<OutputFile> files;
    for (const auto& f : result.side_files)
      files.push_back({"-o", (std::filesystem::path(args.out).parent_path() / f.path).string()});
    check_outputs(files, {{"the model", args.model}, {"the graph", args.out}});
    for (std::size_t i = 0; i < files.size(); ++i)
      ops::write_npy(files[i].path, result.side_files[i].value);
  }
  ops::write_file_atomically(args.out, {text});
  return Success;
}

void add_import_command(CLI::App& app, Action& action) {
  auto args = std::make_shared<ImportArgs>();
  CLI::App* cmd = app.add_subcommand("import", "Read an ONNX model; print it as a graph file");
  cmd->add_option("MODEL", args->model, "the ONNX model (.onnx)")->required();
  cmd->add_option("-o", args->out, "write OUT.eg (large constants to OUT.weights/K.npy)");
  on_run_reporting_user_errors(*cmd, action, [args] { return run_import(*args); });
}

const CommandRegistration kImportRegistration{"import", add_import_command};

}  // namespace

}  // namespace eqsat::tools
