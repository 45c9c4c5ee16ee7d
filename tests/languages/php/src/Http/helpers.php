<?php

namespace App\Http;

function helper(string $s): string
{
    return $s;
}
