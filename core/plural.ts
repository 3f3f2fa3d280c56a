/** "1 turn", "2 turns", "0 turns"; `many` for words that do not just take an s. */
export const plural = (n: number, word: string, many = `${word}s`): string => `${n} ${n === 1 ? word : many}`;
