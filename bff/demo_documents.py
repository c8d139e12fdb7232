"""The demo's synthetic patients and their documents: a scanned referral letter (an image,
slightly rotated and noisy, as a scanner makes, that OCR still reads), a multi-page PDF with a
text layer and a Word .docx, each naming its patient.

Everything here is invented and deterministic: the same patient gives the same bytes (the
noise comes from a seeded generator, the PDF's id and the .docx's times are fixed).
"""

from __future__ import annotations

import io
import random
import textwrap
import unicodedata
import zipfile
from dataclasses import dataclass
from datetime import UTC, date, datetime

import pikepdf
from PIL import Image, ImageDraw, ImageFilter, ImageFont

LETTER_NAME = "referral-letter-scan.jpg"
REPORT_NAME = "outpatient-report.pdf"
CARE_PLAN_NAME = "care-plan.docx"
DOCUMENT_NAMES = (LETTER_NAME, REPORT_NAME, CARE_PLAN_NAME)
SYNTHETIC = "Synthetic demo data - not a real patient."

# A small fixed list of invented people (two share a surname, as real wards have: the reason
# search results and the viewer show each one's date of birth and record number).
_PEOPLE = (
    ("Eleanor Whitfield", date(1955, 1, 30)),
    ("Tomás Álvarez", date(1948, 11, 2)),
    ("Priya Raman", date(1987, 6, 14)),
    ("Kwame Mensah", date(1962, 3, 9)),
    ("Ingrid Solberg", date(1939, 8, 21)),
    ("Declan O'Neill", date(1971, 12, 5)),
    ("Mei Tanaka", date(1993, 4, 27)),
    ("Zofia Nowak", date(1958, 9, 16)),
    ("Hannah Whitfield", date(1982, 2, 11)),
    ("Olumide Adeyemi", date(1966, 7, 3)),
    ("Rafael Costa", date(1944, 5, 19)),
    ("Amira Haddad", date(2001, 10, 8)),
)


@dataclass(frozen=True)
class DemoPatient:
    """An invented patient of a demo folder."""

    name: str
    birth_date: date
    record_number: str
    seed: int  # picks the reason for referral and the scan's noise

    @property
    def born(self) -> str:
        """The date of birth as the letters write it (30/01/1955)."""
        return self.birth_date.strftime("%d/%m/%Y")

    @property
    def surname(self) -> str:
        return self.name.split()[-1]


def demo_patient(index: int, folder_name: str) -> DemoPatient:
    """The patient of the demo's index-th folder (in the order the demo lists them), named
    patient-NNN: record number DEMO-0NNN, unique across the demo."""
    name, born = _PEOPLE[index % len(_PEOPLE)]
    number = int(folder_name.rsplit("-", 1)[-1])
    return DemoPatient(name, born, f"DEMO-{number:04d}", index)


@dataclass(frozen=True)
class _Reason:
    """Why a patient was referred, the findings and the clinic's answer."""

    clinic: str
    complaint: str
    findings: str
    medication: str
    investigations: tuple[tuple[str, str], ...]
    plan: str


_REASONS = (
    _Reason(
        "Cardiology",
        "increasing breathlessness on exertion and ankle swelling for three months",
        "Bibasal crackles and pitting oedema to mid-shin; blood pressure 148/92.",
        "ramipril 5 mg daily, atorvastatin 20 mg at night",
        (("Echocardiogram", "ejection fraction 45%"), ("NT-proBNP", "890 ng/L")),
        "Start bisoprolol 1.25 mg daily and furosemide 20 mg each morning. Review in six weeks.",
    ),
    _Reason(
        "Respiratory",
        "a persistent dry cough for eight weeks, worse at night",
        "Scattered wheeze on both sides; oxygen saturation 96% on air.",
        "salbutamol inhaler as required",
        (("Spirometry", "FEV1/FVC 0.64, reversible"), ("Chest X-ray", "no consolidation")),
        "Asthma confirmed. Start a beclometasone inhaler twice daily. Review in three months.",
    ),
    _Reason(
        "Rheumatology",
        "painful swollen knuckles and morning stiffness lasting two hours",
        "Synovitis of both hands at the second and third knuckles.",
        "paracetamol 1 g up to four times daily",
        (("CRP", "24 mg/L"), ("Rheumatoid factor", "positive")),
        "Start methotrexate 10 mg weekly with folic acid. Blood tests every two weeks.",
    ),
    _Reason(
        "Gastroenterology",
        "upper abdominal pain after meals and a weight loss of four kilograms",
        "Epigastric tenderness; no masses felt.",
        "omeprazole 20 mg daily",
        (("Haemoglobin", "118 g/L"), ("Helicobacter breath test", "positive")),
        "Eradication therapy for seven days, then gastroscopy if symptoms persist.",
    ),
)


def _reason(patient: DemoPatient) -> _Reason:
    return _REASONS[patient.seed % len(_REASONS)]


def letter_lines(patient: DemoPatient) -> list[str]:
    """The referral letter's lines, as typed."""
    reason = _reason(patient)
    body = (
        f"Thank you for seeing this patient, who has had {reason.complaint}. "
        f"{reason.findings} I would be grateful for your opinion and management."
    )
    return [
        "Riverside Medical Practice",
        "14 Mill Lane, Exampleton EX1 2AB",
        "",
        "3 March 2025",
        "",
        f"Dear {reason.clinic} Clinic,",
        "",
        f"Re: {patient.name}, born {patient.born}",
        f"Record number {patient.record_number}",
        "",
        *textwrap.wrap(body, 52),
        "",
        *textwrap.wrap(f"Current medication: {reason.medication}.", 52),
        "",
        "Yours sincerely,",
        "Dr Alex Example, General Practitioner",
        "",
        SYNTHETIC,
    ]


def _unaccented(text: str) -> str:
    """Text without its accents, as many practice systems still print names."""
    parts = unicodedata.normalize("NFKD", text)
    return "".join(char for char in parts if not unicodedata.combining(char))


def scanned_letter(patient: DemoPatient) -> bytes:
    """The referral letter as a scanner gives it: greyscale JPEG, grey paper, specks, a
    slight tilt and softness; large enough type that OCR reads it. Typed without accents
    (Pillow's built-in font has none; search matches names either way)."""
    font = ImageFont.load_default(size=28)
    lines = [_unaccented(line) for line in letter_lines(patient)]
    width, line_height = 1000, 40
    page = Image.new("L", (width, 120 + line_height * len(lines)), 236)
    draw = ImageDraw.Draw(page)
    for row, line in enumerate(lines):
        draw.text((70, 60 + row * line_height), line, fill=28, font=font)
    # Specks: a seeded generator's bytes, the top 0.3% turned into dark dots.
    rng = random.Random(patient.seed)  # noqa: S311 - a picture's specks, seeded on purpose
    noise = Image.frombytes("L", page.size, rng.randbytes(page.width * page.height))
    specks = noise.point(lambda v: 255 if v >= 254 else 0)
    page.paste(70, mask=specks)
    tilt = 0.6 + (patient.seed % 3) * 0.3
    page = page.rotate(tilt, resample=Image.Resampling.BICUBIC, fillcolor=250)
    page = page.filter(ImageFilter.GaussianBlur(0.7))
    out = io.BytesIO()
    page.save(out, format="JPEG", quality=82)
    return out.getvalue()


def _pdf_text(text: str) -> bytes:
    """A PDF literal string of text in WinAnsiEncoding (the standard fonts' encoding)."""
    escaped = bytearray(b"(")
    for byte in text.encode("cp1252"):
        if byte in b"()\\":
            escaped += b"\\" + bytes([byte])
        elif byte < 32 or byte > 126:
            escaped += f"\\{byte:03o}".encode()
        else:
            escaped.append(byte)
    return bytes(escaped + b")")


def _pdf_page(heading: str, lines: list[str]) -> bytes:
    """A page's content stream: a bold heading and lines of 11 pt Helvetica."""
    stream = [b"BT", b"/F2 16 Tf", b"72 740 Td", _pdf_text(heading) + b" Tj", b"/F1 11 Tf"]
    stream += [b"16 TL", b"0 -12 Td"]  # the lines below the heading, 16 pt apart
    for line in lines:
        stream.append(b"T* " + _pdf_text(line) + b" Tj")
    stream.append(b"ET")
    return b"\n".join(stream)


def report_pages(patient: DemoPatient) -> list[tuple[str, list[str]]]:
    """The outpatient report's pages: (heading, lines)."""
    reason = _reason(patient)
    identity = [
        f"Patient: {patient.name}",
        f"Date of birth: {patient.born}",
        f"Record number: {patient.record_number}",
        "",
    ]
    history = textwrap.wrap(
        f"Referred by Riverside Medical Practice with {reason.complaint}. {reason.findings}",
        80,
    )
    results = [f"{test}: {value}" for test, value in reason.investigations]
    return [
        (
            f"{reason.clinic} outpatient report",
            [*identity, "History", *history, "", SYNTHETIC, "", "Page 1 of 3"],
        ),
        (
            "Investigations",
            [*identity, *results, "", "Page 2 of 3"],
        ),
        (
            "Plan",
            [
                *identity,
                *textwrap.wrap(reason.plan, 80),
                "",
                "Dr Jane Demo, Consultant",
                "",
                "Page 3 of 3",
            ],
        ),
    ]


def report_pdf(patient: DemoPatient) -> bytes:
    """The outpatient report: a three-page A4 PDF whose text is selectable (a text layer in
    Helvetica, one of the standard fonts every reader has)."""
    pdf = pikepdf.new()
    fonts = pikepdf.Dictionary(
        F1=pdf.make_indirect(_font("/Helvetica")), F2=pdf.make_indirect(_font("/Helvetica-Bold"))
    )
    for heading, lines in report_pages(patient):
        content = pdf.make_stream(_pdf_page(heading, lines))
        page = pikepdf.Dictionary(
            Type=pikepdf.Name.Page,
            MediaBox=[0, 0, 595, 842],
            Contents=content,
            Resources=pikepdf.Dictionary(Font=fonts),
        )
        pdf.pages.append(pikepdf.Page(page))
    out = io.BytesIO()
    pdf.save(out, deterministic_id=True)
    return out.getvalue()


def _font(base: str) -> pikepdf.Dictionary:
    return pikepdf.Dictionary(
        Type=pikepdf.Name.Font,
        Subtype=pikepdf.Name.Type1,
        BaseFont=pikepdf.Name(base),
        Encoding=pikepdf.Name.WinAnsiEncoding,
    )


_WRITTEN = datetime(2025, 3, 10, 9, 0, tzinfo=UTC)


def care_plan_docx(patient: DemoPatient) -> bytes:
    """The nursing care plan: a Word document with a heading, paragraphs and a table."""
    import docx  # python-docx: imported here, as search's reader does (a heavy import)

    reason = _reason(patient)
    document = docx.Document()
    properties = document.core_properties
    properties.author = properties.last_modified_by = "Demo"
    properties.created = properties.modified = _WRITTEN.replace(tzinfo=None)
    properties.title = "Nursing care plan"
    document.add_heading("Nursing care plan", level=1)
    document.add_paragraph(
        f"{patient.name}, born {patient.born}, record number {patient.record_number}"
    )
    document.add_paragraph(SYNTHETIC)
    document.add_heading("Goals", level=2)
    document.add_paragraph(
        f"Support the patient through the {reason.clinic.lower()} plan: {reason.plan}"
    )
    document.add_paragraph("Encourage fluids and daily walks as tolerated.", style="List Bullet")
    document.add_paragraph("Check understanding of each new medicine.", style="List Bullet")
    document.add_heading("Observations", level=2)
    table = document.add_table(rows=1, cols=3)
    table.style = "Table Grid"
    for cell, title in zip(table.rows[0].cells, ("Time", "Observation", "Value"), strict=True):
        cell.text = title
    for row in (("08:00", "Pulse", "76/min"), ("08:00", "Temperature", "36.8 C")):
        cells = table.add_row().cells
        for cell, value in zip(cells, row, strict=True):
            cell.text = value
    out = io.BytesIO()
    document.save(out)
    return _fixed_zip_times(out.getvalue())


def _fixed_zip_times(data: bytes) -> bytes:
    """The same ZIP with every entry dated 1980-01-01 (python-docx stamps them with the time
    of saving), so the same patient gives the same bytes."""
    out = io.BytesIO()
    with (
        zipfile.ZipFile(io.BytesIO(data)) as source,
        zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as target,
    ):
        for entry in source.infolist():
            fixed = zipfile.ZipInfo(entry.filename, date_time=(1980, 1, 1, 0, 0, 0))
            fixed.compress_type = zipfile.ZIP_DEFLATED
            target.writestr(fixed, source.read(entry))
    return out.getvalue()


def documents(patient: DemoPatient) -> dict[str, bytes]:
    """A demo folder's documents by file name."""
    return {
        LETTER_NAME: scanned_letter(patient),
        REPORT_NAME: report_pdf(patient),
        CARE_PLAN_NAME: care_plan_docx(patient),
    }
