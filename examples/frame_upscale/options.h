// The demo's command line. parseOptions never exits: it returns the options, or the usage
// error to print (exit status 2).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "pattern.h"

namespace demo {

enum class Fault { None, Black, Offset };

struct Options {
    PatternKind pattern = PatternKind::Interleaved;
    uint32_t frames = 3;
    uint32_t width = 960, height = 540;
    std::string outDir;  // empty: no PNGs
    std::string model;   // empty: the default (data/upscaler_x2, else data/espcn_x2)
    std::string json;    // empty: no JSON report
    int device = -1;
    vkinfer::Precision precision = vkinfer::Precision::Float32;
    uint32_t sceneCost = 0;
    Sharing sharing = Sharing::Exclusive;
    bool validate = false;  // also VKINFER_VALIDATE=1
    bool check = false;
    Fault fault = Fault::None;
    bool help = false;
};

struct ParseResult {
    Options options;
    std::string error;  // non-empty: a usage error
};

ParseResult parseOptions(int argc, char** argv);
const char* usageText();

}  // namespace demo
