<?php

namespace App\Models;

class User extends Model
{
    public function __construct(private string $name)
    {
    }

    public function name(): string
    {
        return $this->format($this->name);
    }

    private function format(string $s): string
    {
        return strtoupper($s);
    }
}
