"""Reports; exporters are imported inside the functions that need them."""


def render(rows):
    return "\n".join(str(row) for row in rows)


def preview(rows):
    return render(rows)


def export_pdf(rows):
    from pkg.exporters.pdf import render
    return render(rows)


def export_sheet(rows):
    from pkg.exporters import spreadsheet

    def build():
        return spreadsheet.render(rows)

    return build()


class NightlyJob:
    def run(self, rows):
        from pkg.exporters.pdf import render as render_pdf
        return render_pdf(rows)

    def summary(self, rows):
        return render(rows)
