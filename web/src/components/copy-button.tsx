import { useState } from 'preact/hooks';

/** Copies `text` to the clipboard and says so (in a live region), or says to copy it by hand where the browser refuses. */
export function CopyButton({ text, label }: { text: string; label: string }) {
  const [status, setStatus] = useState('');
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      setStatus('Copied.');
    } catch {
      setStatus('The browser did not allow copying: select the text and copy it.');
    }
  };
  return (
    <span class="copy">
      <button type="button" onClick={() => void copy()}>
        {label}
      </button>
      <span class="copy-status" aria-live="polite">
        {status}
      </span>
    </span>
  );
}
