"""An independent conversion oracle for answers' convert_unit: UCUM through ucumvert (a lark
grammar of UCUM onto pint), no code shared with the Rust implementation.

Reads a JSON list of cases on stdin, each {"value": number, "from": UCUM, "to": UCUM,
"molar_mass": g/mol or null}, and writes a JSON list of the same length: the converted value,
or {"error": "<exception type>"}. With a molar mass, the value passes from mass to amount of
substance (or back) through it: pint's mole is its own dimension, unlike UCUM's.
"""

import json
import sys

from ucumvert import PintUcumRegistry

UREG = PintUcumRegistry()


def quantity(value, code):
    unit = UREG.from_ucum(code)
    # from_ucum gives a quantity whose magnitude carries factors such as 10*9; scale the value
    # by it, keep its units (a temperature stays an offset unit).
    return UREG.Quantity(value * unit.magnitude, unit.units)


def target(code):
    unit = UREG.from_ucum(code)
    return unit.magnitude, unit.units


def convert(case):
    q = quantity(case["value"], case["from"])
    mass = case.get("molar_mass")
    if mass is not None:
        per_mol = UREG.Quantity(mass, "g/mol")
        if q.check("[substance]") or q.check("[substance]/[length]**3"):
            q = q * per_mol
        else:
            q = q / per_mol
    magnitude, units = target(case["to"])
    return q.to(units).magnitude / magnitude


def main():
    out = []
    for case in json.load(sys.stdin):
        try:
            out.append(float(convert(case)))
        except Exception as e:  # the caller compares, and reports the type
            out.append({"error": type(e).__name__})
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
