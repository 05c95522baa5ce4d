#!/usr/bin/env python3
"""Checks that gdbus-codegen documents every member of the shipped interface XML.

    scripts/check-interface-docs.py INTERFACE.xml DOCBOOK.xml...

INTERFACE.xml is dbus/org.orientationd.Orientation1.xml; the DOCBOOK files are what
`gdbus-codegen --generate-docbook` made of it. Every method, signal and property of the
interface XML must have a section with a non-empty description, and every argument a
non-empty description. Prints each missing description; exit status 1 when there is
any, 0 otherwise. Python 3 standard library only.
"""
import sys
import xml.etree.ElementTree as ET


def text(element):
    return "".join(element.itertext()).strip() if element is not None else ""


def main(argv):
    if len(argv) < 3:
        sys.exit(__doc__)
    source = ET.parse(argv[1]).getroot()
    sections = {}
    for path in argv[2:]:
        for section in ET.parse(path).getroot().iter("refsect2"):
            sections[section.get("id", "")] = section
    missing = []
    for interface in source.iter("interface"):
        name = interface.get("name")
        for kind, sep in (("method", "."), ("signal", "."), ("property", ".")):
            for member in interface.iter(kind):
                key = "gdbus-%s-%s%s%s" % (kind, name.replace(".", "-"), sep, member.get("name"))
                section = sections.get(key)
                what = "%s %s.%s" % (kind, name, member.get("name"))
                if section is None:
                    missing.append(what + ": no section in the generated documentation")
                    continue
                if not text(section.find("para")):
                    missing.append(what + ": no description")
                args = [a.get("name") for a in member.iter("arg")]
                documented = {}
                for entry in section.iter("varlistentry"):
                    parameter = entry.find(".//parameter")
                    documented[text(parameter)] = text(entry.find("listitem"))
                for arg in args:
                    if not documented.get(arg):
                        missing.append("%s: argument %s has no description" % (what, arg))
    for line in missing:
        print("check-interface-docs: " + line)
    print("check-interface-docs: %d sections checked, %d descriptions missing" % (len(sections), len(missing)))
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
