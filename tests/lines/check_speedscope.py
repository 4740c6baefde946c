#!/usr/bin/env python3
"""Checks a file against speedscope's file format, as its specification
states it (jlfwong/speedscope, src/lib/file-format-spec.ts, from which the
published https://www.speedscope.app/file-format-schema.json is generated):

  File:     $schema == "https://www.speedscope.app/file-format-schema.json",
            shared: {frames: Frame[]}, profiles: Profile[]; optional name
            (string), activeProfileIndex (number), exporter (string)
  Frame:    name: string; optional file: string, line: number, col: number
  Profile:  EventedProfile | SampledProfile, told apart by type
  Sampled:  type "sampled", name: string, unit: ValueUnit, startValue and
            endValue: numbers (endValue >= startValue), samples: number[][]
            (indexes into shared.frames), weights: number[] of the same
            length as samples
  Evented:  type "evented", name, unit, startValue, endValue, events: {type
            "O"|"C", at: number (non-decreasing), frame: index}[], balanced
  ValueUnit: none, nanoseconds, microseconds, milliseconds, seconds, bytes

No extra keys are allowed where the generated schema closes its objects
(additionalProperties: false).  Usage: check_speedscope.py FILE; exit 0 when
it conforms, 1 with each violation on stderr.
"""
import json
import sys

SCHEMA = "https://www.speedscope.app/file-format-schema.json"
UNITS = {"none", "nanoseconds", "microseconds", "milliseconds", "seconds", "bytes"}
errors = []


def bad(where, what):
    errors.append(f"{where}: {what}")


def is_num(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def keys(where, obj, required, optional):
    if not isinstance(obj, dict):
        bad(where, "not an object")
        return False
    for k in required:
        if k not in obj:
            bad(where, f"lacks {k}")
    for k in obj:
        if k not in required and k not in optional:
            bad(where, f"has {k}, which the format does not define")
    return all(k in obj for k in required)


def check(doc):
    if not keys("file", doc, ["$schema", "shared", "profiles"],
                ["name", "activeProfileIndex", "exporter"]):
        return
    if doc["$schema"] != SCHEMA:
        bad("$schema", repr(doc["$schema"]))
    for k, t in (("name", str), ("exporter", str)):
        if k in doc and not isinstance(doc[k], t):
            bad(k, "not a string")
    if "activeProfileIndex" in doc and not is_num(doc["activeProfileIndex"]):
        bad("activeProfileIndex", "not a number")
    shared = doc["shared"]
    if not keys("shared", shared, ["frames"], []):
        return
    frames = shared["frames"]
    if not isinstance(frames, list):
        bad("shared.frames", "not an array")
        return
    for i, f in enumerate(frames):
        w = f"shared.frames[{i}]"
        if not keys(w, f, ["name"], ["file", "line", "col"]):
            continue
        if not isinstance(f["name"], str):
            bad(w, "name is not a string")
        if "file" in f and not isinstance(f["file"], str):
            bad(w, "file is not a string")
        for k in ("line", "col"):
            if k in f and not is_num(f[k]):
                bad(w, f"{k} is not a number")
    profiles = doc["profiles"]
    if not isinstance(profiles, list):
        bad("profiles", "not an array")
        return
    if "activeProfileIndex" in doc and is_num(doc["activeProfileIndex"]) and profiles and \
            not 0 <= doc["activeProfileIndex"] < len(profiles):
        bad("activeProfileIndex", "names no profile")

    def frame_index(w, v):
        if not (isinstance(v, int) and not isinstance(v, bool) and 0 <= v < len(frames)):
            bad(w, f"{v!r} is not an index into shared.frames")

    for i, p in enumerate(profiles):
        w = f"profiles[{i}]"
        if not isinstance(p, dict) or p.get("type") not in ("sampled", "evented"):
            bad(w, "type is neither sampled nor evented")
            continue
        common = ["type", "name", "unit", "startValue", "endValue"]
        if p["type"] == "sampled":
            if not keys(w, p, common + ["samples", "weights"], []):
                continue
        elif not keys(w, p, common + ["events"], []):
            continue
        if not isinstance(p["name"], str):
            bad(w, "name is not a string")
        if p["unit"] not in UNITS:
            bad(w, f"unit {p['unit']!r}")
        if not is_num(p["startValue"]) or not is_num(p["endValue"]):
            bad(w, "startValue or endValue is not a number")
        elif p["endValue"] < p["startValue"]:
            bad(w, "endValue is below startValue")
        if p["type"] == "sampled":
            s, wt = p["samples"], p["weights"]
            if not isinstance(s, list) or not isinstance(wt, list):
                bad(w, "samples or weights is not an array")
                continue
            if len(s) != len(wt):
                bad(w, f"{len(s)} samples but {len(wt)} weights")
            for j, stack in enumerate(s):
                if not isinstance(stack, list):
                    bad(f"{w}.samples[{j}]", "not an array")
                    continue
                for v in stack:
                    frame_index(f"{w}.samples[{j}]", v)
            for j, v in enumerate(wt):
                if not is_num(v):
                    bad(f"{w}.weights[{j}]", "not a number")
        else:
            depth, last = [], None
            for j, e in enumerate(p["events"]):
                ew = f"{w}.events[{j}]"
                if not keys(ew, e, ["type", "at", "frame"], []):
                    continue
                frame_index(ew, e["frame"])
                if not is_num(e["at"]) or (last is not None and e["at"] < last):
                    bad(ew, "at is not a number in non-decreasing order")
                last = e["at"]
                if e["type"] == "O":
                    depth.append(e["frame"])
                elif e["type"] == "C":
                    if not depth or depth.pop() != e["frame"]:
                        bad(ew, "closes a frame that is not the innermost open")
                else:
                    bad(ew, f"type {e['type']!r}")
            if depth:
                bad(w, "frames left open")


try:
    with open(sys.argv[1], "rb") as fh:
        doc = json.load(fh)
except (OSError, ValueError) as e:
    print(f"check_speedscope: {e}", file=sys.stderr)
    sys.exit(1)
check(doc)
for e in errors:
    print("check_speedscope:", e, file=sys.stderr)
sys.exit(1 if errors else 0)
