#!/usr/bin/env python3
"""Home Assistant's sentence recogniser (hassil with home-assistant-intents, as HA 2024.3.3 pins them) on the same
home and the same sentences as hearth-commands-bench, for the side-by-side row of docs/benchmarks.md.

Usage: commands_hassil.py HOME_JSON SENTENCES_TXT [--sentences N] [--seed S]
HOME_JSON is a Hearth home file (hearth-commands-bench --write-home); its accessories' and services' names become
HA's `name` slot list and its rooms its `area` list, as HA's default agent fills them from exposed entities. Each
sentence is recognised alone (time.perf_counter around hassil.recognize); prints a small table and one JSON line.
No network: everything is in process.
"""
import json
import random
import statistics
import sys
import time

from hassil import Intents, recognize
from hassil.intents import TextSlotList
from home_assistant_intents import get_intents


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def main():
    args = sys.argv[1:]
    if len(args) < 2:
        print(__doc__)
        return 2
    count = int(args[args.index("--sentences") + 1]) if "--sentences" in args else 200
    seed = int(args[args.index("--seed") + 1]) if "--seed" in args else 18
    home = json.load(open(args[0]))["home"]
    sentences = [line.strip() for line in open(args[1]) if line.strip()]
    random.Random(seed).shuffle(sentences)
    sentences = sentences[:count]

    started = time.perf_counter()
    intents = Intents.from_dict(get_intents("en"))
    names = set()
    for accessory in home["accessories"]:
        names.add(accessory["name"])
        for service in accessory["services"]:
            names.add(service["name"])
    areas = [home["roomForEntireHome"]["name"]] + [room["name"] for room in home["rooms"]]
    slot_lists = {"name": TextSlotList.from_strings(sorted(names)), "area": TextSlotList.from_strings(areas)}
    setup_ms = (time.perf_counter() - started) * 1000

    latencies = []
    recognised = 0
    for sentence in sentences:
        begin = time.perf_counter()
        result = recognize(sentence, intents, slot_lists=slot_lists)
        latencies.append((time.perf_counter() - begin) * 1e6)
        recognised += result is not None
    total_s = sum(latencies) / 1e6
    report = {
        "bench": "commands-hassil",
        "hassil": __import__("importlib.metadata").metadata.version("hassil"),
        "intents": __import__("importlib.metadata").metadata.version("home-assistant-intents"),
        "names": len(names),
        "areas": len(areas),
        "sentences": len(sentences),
        "setup_ms": round(setup_ms, 2),
        "p50_us": round(percentile(latencies, 0.50), 1),
        "p99_us": round(percentile(latencies, 0.99), 1),
        "max_us": round(max(latencies), 1),
        "mean_us": round(statistics.mean(latencies), 1),
        "sentences_per_second": round(len(sentences) / total_s, 1) if total_s else None,
        "recognised": recognised,
    }
    print(f"hassil {report['hassil']} + home-assistant-intents {report['intents']}: {len(names)} names, {len(areas)} areas")
    print(f"  {len(sentences)} sentences: p50 {report['p50_us']} µs, p99 {report['p99_us']} µs, "
          f"max {report['max_us']} µs, {report['sentences_per_second']} sentences/s, {recognised} recognised")
    print(json.dumps(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
