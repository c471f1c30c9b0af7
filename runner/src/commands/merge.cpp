// vitals merge FILES... -o OUT: shard files joined into one.
#include <fmt/format.h>

#include <CLI/CLI.hpp>

#include "../command.hpp"
#include "../output_flag.hpp"
#include "vitals/atomic_file.hpp"

namespace vitals::cli {
namespace {

class MergeCommand final : public Command {
public:
    void declare(CLI::App& app) override {
        app.add_option("files", inputs_, "Results files to join")->required();
        output_.declare(app, "-o,--output", "The joined file")->required();
    }

    void run(const CommandContext&) override {
        const OutputFile output = *output_.prepare({.inputs = {inputs_.begin(), inputs_.end()}});  // before the inputs are read
        try {  // streamed: a bad input leaves no file behind (or, on a descriptor, what was written before it)
            output.write_streamed([&](const WritePiece& write) { merge_results(inputs_, write); });
        } catch (const ResultsFileError& e) {
            throw UsageError(e.what());
        }
        fmt::print(stderr, "merged {} file{} into {}\n", inputs_.size(), inputs_.size() > 1 ? "s" : "", output_.path());
    }

private:
    std::vector<std::string> inputs_;
    OutputFlag output_;
};

}  // namespace

std::unique_ptr<Command> make_merge_command() { return std::make_unique<MergeCommand>(); }

}  // namespace vitals::cli
