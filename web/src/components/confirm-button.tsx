import { useEffect, useRef, useState } from 'preact/hooks';

interface ConfirmButtonProps {
  /** The button's label, e.g. "Revoke". */
  label: string;
  /** The question asked before acting, e.g. "Revoke the token CI?". */
  question: string;
  onConfirm: () => Promise<void>;
  danger?: boolean;
}

/** A destructive action asked for twice, in the page (no browser dialog), so it stays keyboard- and screen-reader-friendly. */
export function ConfirmButton({ label, question, onConfirm, danger = true }: ConfirmButtonProps) {
  const [asking, setAsking] = useState(false);
  const [busy, setBusy] = useState(false);
  const yes = useRef<HTMLButtonElement>(null);
  // The question replaces the button that had focus: focus moves to its answer, not back to the page's top.
  useEffect(() => {
    if (asking) yes.current?.focus();
  }, [asking]);
  const className = danger ? 'danger' : undefined;
  if (!asking) {
    return (
      <button type="button" class={className} onClick={() => setAsking(true)}>
        {label}
      </button>
    );
  }
  const confirm = async () => {
    setBusy(true);
    try {
      await onConfirm();
    } finally {
      setBusy(false);
      setAsking(false);
    }
  };
  return (
    <span class="confirm">
      <span>{question}</span>
      <button type="button" ref={yes} class={className} disabled={busy} onClick={() => void confirm()}>
        {`Yes, ${label.toLowerCase()}`}
      </button>
      <button type="button" class="secondary" disabled={busy} onClick={() => setAsking(false)}>
        Cancel
      </button>
    </span>
  );
}
