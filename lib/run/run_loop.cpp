#include <partcl/run/run_loop.hpp>

#include <partcl/backend/error.hpp>

#include "models.hpp"
#include "output.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>

namespace partcl {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

// Every model a scenario can name ([scenario] model), each set up fresh or from a checkpoint:
// the one place that knows them all.
struct Model {
    const char* name;
    RunLoop (*fresh)(Context&, Scenario, fs::path, const RunOptions&);
    RunLoop (*resumed)(Context&, const Checkpoint&, const fs::path&, fs::path, RunLength,
                       const RunOptions&);
};
constexpr Model models[] = {
    {"nbody", detail::nbody_run, detail::resumed_nbody_run},
    {"mps", detail::mps_run, detail::resumed_mps_run},
    {"pic", detail::pic_run, detail::resumed_pic_run},
    {"cosmology", detail::cosmology_run, detail::resumed_cosmology_run},
};

const Model& model_named(const std::string& name, const std::string& what) {
    std::string known;
    for (const Model& m : models) {
        if (name == m.name) return m;
        known += (known.empty() ? "" : ", ") + std::string(m.name);
    }
    throw UsageError(what + " is of model \"" + name + "\", which partcl cannot run (" + known + ")");
}

// A CSV field: quoted (quotes doubled) when it holds a comma, a quote or a line break.
std::string csv_field(const std::string& text) {
    if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
    std::string quoted = "\"";
    for (char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
    return quoted + "\"";
}

double total_items(const MultiDeviceLaunch& launch) {
    double items = 0;
    for (const DeviceWork& w : launch.work()) items += w.items;
    return items;
}

// devices.csv's rows of one rank (run_loop.hpp): a row per launch and device, in the model's
// order of launches.
std::string devices_rows(const LaunchList& launches, int rank) {
    std::string text;
    for (const MultiDeviceLaunch* launch : launches) {
        const double items = total_items(*launch);
        for (std::size_t d = 0; d < launch->work().size(); ++d) {
            const DeviceWork& w = launch->work()[d];
            text += std::to_string(rank) + "," + csv_field(launch->name()) + "," +
                    std::to_string(d) + "," +
                    csv_field(launch->context().device(d).info().name) +
                    detail::format(",%.6g,%.6f,%zu,%.17g,%.6g\n", launch->scheduler().weights()[d],
                                   items > 0 ? w.items / items : 0.0, w.launches, w.items,
                                   w.seconds);
        }
    }
    return text;
}

// The summary's lines on several devices: per launch that ran, each device's share of its
// items and its kernel time.
std::vector<std::string> device_lines(const LaunchList& launches) {
    std::vector<std::string> lines;
    for (const MultiDeviceLaunch* launch : launches) {
        const double items = total_items(*launch);
        if (launch->context().size() < 2 || items <= 0) continue;
        std::string line = launch->name() + ":";
        for (std::size_t d = 0; d < launch->work().size(); ++d) {
            const DeviceWork& w = launch->work()[d];
            line += detail::format("%s device %zu %.1f%% of items, kernel %.3g s", d ? ";" : "", d,
                                   100 * w.items / items, w.seconds);
        }
        lines.push_back(line);
    }
    return lines;
}

bool snapshot_listed(const RunSchedule& schedule, std::uint64_t step) {
    return std::binary_search(schedule.snapshot_steps.begin(), schedule.snapshot_steps.end(), step);
}

} // namespace

RunLoop::RunLoop(Context& context, Scenario scenario, fs::path out, RunOptions options)
    : RunLoop(model_named(scenario.model, "scenario '" + scenario.name + "'")
                  .fresh(context, std::move(scenario), std::move(out), options)) {}

RunLoop RunLoop::resume(Context& context, const Checkpoint& c, const fs::path& source,
                        fs::path out, RunLength length, RunOptions options) {
    const std::string model = parse_scenario(c.scenario_toml, source.string()).model;
    return model_named(model, "checkpoint " + source.string())
        .resumed(context, c, source, std::move(out), length, options);
}

RunLoop::RunLoop(std::unique_ptr<RunModel> model, fs::path out, std::optional<ResumedLoop> resumed)
    : model_(std::move(model)), out_(std::move(out)), resumed_(std::move(resumed)),
      csv_(std::make_unique<CsvLog>()) {
    if (resumed_) periods_ = resumed_->periods;
}

RunLoop::RunLoop(RunLoop&&) noexcept = default;
RunLoop& RunLoop::operator=(RunLoop&&) noexcept = default;
RunLoop::~RunLoop() = default;

std::string RunLoop::title() const {
    return model_->title(resumed_ ? resumed_->source : std::string());
}

void RunLoop::on_progress(std::function<void(const RunProgress&)> callback) {
    progress_ = std::move(callback);
}

bool RunLoop::writes() const { return model_->ranks().root(); }

void RunLoop::written(const fs::path& file) {
    if (std::find(summary_.files.begin(), summary_.files.end(), file) == summary_.files.end())
        summary_.files.push_back(file);
}

void RunLoop::append_sample() {
    const std::string row = model_->sample();
    if (writes()) csv_->append(row);
}

void RunLoop::frame() {
    const fs::path p = out_ / detail::numbered("frame", model_->step(), "png");
    model_->write_frame(p);
    written(p);
    ++summary_.frames;
}

void RunLoop::snapshot() {
    const fs::path p = out_ / detail::numbered("snapshot", model_->step(), "h5");
    model_->write_snapshot(p);
    written(p);
    for (const fs::path& extra : model_->write_with_snapshot(p)) written(extra);
    ++summary_.snapshots;
}

void RunLoop::checkpoint() {
    RunModel& m = *model_;
    // devices.csv with each checkpoint, so a run that stops later leaves the split until then:
    // every rank's rows, in rank order.
    const std::string mine = devices_rows(m.launches(), m.ranks().rank());
    const std::vector<char> rows = m.ranks().allgatherv(std::vector<char>(mine.begin(), mine.end()));
    if (writes())
        write_file_atomically(out_ / "devices.csv",
                              "rank,launch,device,device_name,weight,share,launches,items,"
                              "kernel_seconds\n" + std::string(rows.begin(), rows.end()));
    written(out_ / "devices.csv");
    if (writes()) csv_->sync();  // the CSV on disk holds at least the checkpoint's rows
    Checkpoint c;
    c.scenario_toml = to_toml(m.scenario());
    c.step = m.step();
    c.time = m.time();
    c.precision = to_string(m.scenario().precision);
    if (writes()) c.output_text = csv_->text();
    if (m.schedule().by_time())
        c.run_state = {double(periods_[0]), double(periods_[1]), double(periods_[2])};
    m.save(c);
    if (writes()) write_checkpoint(out_ / "checkpoint.bin", c);
    written(out_ / "checkpoint.bin");
}

double RunLoop::wall_seconds() const {
    return started_ ? std::chrono::duration<double>(Clock::now() - start_).count() : 0.0;
}

// The fraction done, by steps or by time.
double RunLoop::fraction() const {
    const RunSchedule sc = model_->schedule();
    return sc.steps ? std::min(1.0, double(model_->step()) / double(sc.steps))
                    : std::min(1.0, model_->time() / sc.end_time);
}

void RunLoop::report() {
    if (!progress_) return;
    const RunModel& m = *model_;
    const RunSchedule sc = m.schedule();
    RunProgress p;
    p.step = m.step();
    p.steps = sc.steps;
    p.time = m.time();
    p.end_time = sc.end_time;
    p.wall_seconds = wall_seconds();
    p.steps_per_second =
        p.wall_seconds > 0 ? double(p.step - summary_.first_step) / p.wall_seconds : 0;
    p.fraction = fraction();
    p.done = sc.steps ? p.step >= sc.steps : p.time >= sc.end_time;
    // The time left at the pace of this process.
    p.eta_seconds = p.fraction > fraction0_
                        ? p.wall_seconds * (1 - p.fraction) / (p.fraction - fraction0_)
                        : 0;
    p.text = m.progress_text(p);
    progress_(p);
}

void RunLoop::start() {
    if (started_) return;
    RunModel& m = *model_;
    const bool fresh = !resumed_;
    summary_.first_step = m.step();
    // Rank 0 writes every file; the others take part in what gathers the state.
    if (writes()) detail::create_output_directory(out_);
    started_ = true;
    start_ = Clock::now();
    const fs::path csv_file = out_ / m.csv_name();
    if (writes()) csv_->open(csv_file, fresh ? m.csv_header() : resumed_->csv_text);
    written(csv_file);
    m.begin(fresh);
    fraction0_ = fraction();
    const RunSchedule sc = m.schedule();
    if (fresh) {
        append_sample();
        if (sc.frame.on()) frame();
        if (sc.snapshot.on() || snapshot_listed(sc, 0)) snapshot();
        if (sc.progress_at_start) report();
    }
}

bool RunLoop::step() {
    start();
    RunModel& m = *model_;
    if (m.finished()) return false;
    const RunSchedule sc = m.schedule();
    // By time, the end of a run of steps is none of the periods' times.
    constexpr double never = std::numeric_limits<double>::infinity();
    const double end = sc.by_time() && !sc.steps ? sc.end_time : never;
    const auto grid = [](const Every& e, std::uint64_t done, double otherwise) {
        return e.time > 0 ? double(done + 1) * e.time : otherwise;
    };
    const auto due = [&](const Every& e, double next) {
        return e.steps ? m.step() % e.steps == 0 : e.time > 0 && m.time() >= next;
    };
    // Samples and frames by time land on whole periods (the end between two is none, so a
    // resumed run keeps the uninterrupted run's steps).
    const double grid_sample = grid(sc.sample, periods_[0], end);
    const double grid_frame = grid(sc.frame, periods_[1], end);
    const double next_sample = std::min(end, grid_sample), next_frame = std::min(end, grid_frame);
    m.advance(sc.by_time() ? std::min(next_sample, next_frame) : never);
    const bool last = m.finished();
    const bool at_sample = last || due(sc.sample, next_sample) || snapshot_listed(sc, m.step());
    const bool at_frame = sc.frame.on() && (last || due(sc.frame, next_frame));
    if (at_sample) {
        if (sc.sample.time > 0 && m.time() >= grid_sample) ++periods_[0];
        append_sample();
    }
    if (at_frame) {
        if (sc.frame.time > 0 && m.time() >= grid_frame) ++periods_[1];
        frame();
    }
    if ((last && sc.snapshot_at_end) || (sc.snapshot.steps && m.step() % sc.snapshot.steps == 0) ||
        snapshot_listed(sc, m.step()))
        snapshot();
    bool at_checkpoint = last || (sc.checkpoint.steps && m.step() % sc.checkpoint.steps == 0);
    while (at_sample && sc.checkpoint.time > 0 &&
           m.time() >= double(periods_[2] + 1) * sc.checkpoint.time) {
        ++periods_[2];
        at_checkpoint = true;
    }
    if (at_checkpoint) checkpoint();
    if (sc.progress_every_step || at_sample) report();
    return true;
}

RunSummary RunLoop::summary() const {
    RunSummary summary = summary_;
    summary.first_step = started_ ? summary_.first_step : model_->step();
    summary.last_step = model_->step();
    summary.time = model_->time();
    summary.wall_seconds = wall_seconds();
    summary.steps_per_second =
        summary.wall_seconds > 0
            ? double(summary.last_step - summary.first_step) / summary.wall_seconds
            : 0;
    summary.lines = model_->summary_lines(summary, out_.string());
    for (std::string& line : device_lines(model_->launches())) summary.lines.push_back(std::move(line));
    return summary;
}

std::string RunLoop::csv_text() const { return started_ && writes() ? csv_->text() : std::string(); }

RunSummary RunLoop::run() {
    start();
    while (step()) {
    }
    return summary();
}

} // namespace partcl
