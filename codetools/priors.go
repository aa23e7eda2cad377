package codetools
