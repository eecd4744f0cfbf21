"""Grammars with llama.cpp's verdict: True = it builds a sampler, False = NULL / crash / hang.

The labels are checked against llama.cpp itself in test_llama_crosscheck.py.
"""

from __future__ import annotations

VALID: list[str] = [
    'root ::= "a"',
    'root ::= "a" | "b"',
    'root ::= ""',
    'root ::= ',
    'root ::= ()',
    'root ::= []',                                   # llama.cpp emits nothing for []
    'root ::= [] "a"',
    'root ::= [a-z]+ [0-9]* "!"?',
    'root ::= [^\\n]+ "\\n"',
    'root ::= "\\x41\\u00e9\\U0001F600"',
    'root ::= [\\x00-\\x1F\\]\\[\\-\\\\]',
    'root ::= "\\"quoted\\""',
    'root ::= .',
    'root ::= "a"{3}',
    'root ::= "a"{2,}',
    'root ::= "a"{0,5}',
    'root ::= "a"{ 1 , 4 }',
    'root ::= "a"{0}',
    'root ::= "a"{0,5000}',                          # max > 2000 means "no max" in llama.cpp
    'root ::= "a"{2000}',
    'root ::= ("a" "b"){40}{50}',                    # 2000 rule copies: just allowed
    'root ::= ("a"*)*',                              # the inner group is not literally empty
    'root ::= ("a"?)*',
    'root ::= ("a"? "b")* "c"',
    'root ::= "a"*?',
    'root ::= "a" |\n   "b"',                        # a newline may follow "|"
    'root ::= (\n  "a"\n  | "b"\n)',                 # newlines inside parentheses
    'root ::= "a" # comment\n# another\n',
    '# leading comment\nroot ::= x\nx ::= "y"',
    'x ::= "y"\nroot ::= x',                         # definition order does not matter
    'a ::= "x"\na ::= "y"\nroot ::= a',              # redefinition: the last one wins
    'root ::= rule-with-dashes\nrule-with-dashes ::= "1"',
    'root ::= R2D2\nR2D2 ::= "beep"',
    'root ::= "a" root | "b"',                       # right recursion
    'root ::= "(" root ")" | ""',
    'root ::= <[5]>',
    'root ::= !<[5]>* <[2]>',
    'root ::= "a"\r\nb ::= "c"\r\n',
    'root ::= "é" [ぁ-ゟ]',
    'root ::= ["\\\\]',
    'root ::= [a-]',
    'root ::= [-a]',
    'root ::= [z-a]',                                # a reversed range matches nothing, but parses
    'root ::= x\nx ::= y\ny ::= "z" | "w" x',        # x -> y -> x, but not at the left
    'root ::= "a"\n\n\n',
    'root ::= "[" ws "]"\nws ::= | " " | "\\n" [ \\t]{0,20}',
    'other ::= "x"\nroot ::= "y"',
]

INVALID: list[str] = [
    'root ::= foo',                                  # undefined rule
    'root ::= "a"\nroot2 ::= missing',
    'ro_ot ::= "a"',                                 # "_" is not a name character
    'rule ::= "a"',                                  # no root
    '',                                              # nothing at all (not sent to llama.cpp)
    '   \n# only a comment\n',
    'root "a"',                                      # missing ::=
    'root := "a"',
    'root ::= "a',                                   # unterminated string
    'root ::= [a-z',                                 # unterminated class
    'root ::= [a-',
    'root ::= ("a"',                                 # unbalanced parentheses
    'root ::= "a")',
    'root ::= "\\q"',                                # unknown escape
    'root ::= "\\x4"',                               # short hex escape
    'root ::= "\\u00G1"',
    'root ::= [\\p]',
    'root ::= *',                                    # nothing to repeat
    'root ::= "a" | +',
    'root ::= [^]*',                                 # [^] is empty, so * has nothing to repeat
    'root ::= "a"{',                                 # broken repetitions
    'root ::= "a"{,3}',
    'root ::= "a"{2',
    'root ::= "a"{2,3',
    'root ::= "a"{x}',
    'root ::= "a"{3,1}',                             # max < min: llama.cpp loops forever
    'root ::= "a"{2001}',                            # above MAX_REPETITION_THRESHOLD
    'root ::= ("a" "b"){50}{50}',                    # 2500 rule copies
    'root ::= "a"\n    | "b"',                       # a line may not start with "|"
    'root ::= "a" "b"\n  "c"',                       # a newline ends the rule outside ()
    'root ::= root "a" | "b"',                       # left recursion
    'root ::= x\nx ::= y "a"\ny ::= x "b" | "c"',    # indirect left recursion
    'root ::= x\nx ::= y\ny ::= "z" | x "w"',
    'root ::= x\nx ::= e x "a" | "b"\ne ::= ""',    # left recursion through an empty rule
    'root ::= "a"**',                                # (a*)* lowered: left recursive
    'root ::= "a"?*',
    'root ::= c\nc ::= a c "z" | "x"\na ::= b\nb ::= ""',  # hidden: llama.cpp runs out of memory
    'root ::= !"a"',                                 # ! must precede a token
    'root ::= <[12',
    'root ::= <[12]',
    'root ::= <think>',                              # token text without a vocabulary
    'root ::= "a" ::= "b"',
    '::= "a"',
    'root ::= "a"\n"b"',
]
