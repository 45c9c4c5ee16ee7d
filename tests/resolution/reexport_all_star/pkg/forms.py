from pkg.text import _clean, normalize
from pkg.validators import *
from pkg.formatting import *


def check_signup(email, phone):
    return validate_email(normalize(email)) and validate_phone(_clean(phone))


def display_name(first, last):
    return format_name(_clean(first), _clean(last))
