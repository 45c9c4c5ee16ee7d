<?php

namespace App\Http;

use App\Models\User;
use Psr\Log\LoggerInterface;

class UserController
{
    public function show(LoggerInterface $log): string
    {
        $user = new User("x");
        User::find(1);
        $log->info("shown");
        return helper($user->name());
    }
}
