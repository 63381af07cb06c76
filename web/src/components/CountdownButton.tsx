import { Button, type ButtonProps } from 'antd';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';

interface CountdownButtonProps extends Omit<ButtonProps, 'onClick'> {
  /** Resolves true when the action succeeded and the lock should start. */
  onClick: () => Promise<boolean>;
  seconds?: number;
}

/** A button locked for `seconds` after a successful action, showing the countdown (email codes, password reset). */
export function CountdownButton({ onClick, seconds = 30, children, ...rest }: CountdownButtonProps) {
  const { t } = useTranslation();
  const [remaining, setRemaining] = useState(0);
  const [loading, setLoading] = useState(false);

  useEffect(() => {
    if (remaining <= 0) return;
    const timer = window.setTimeout(() => setRemaining((value) => value - 1), 1000);
    return () => window.clearTimeout(timer);
  }, [remaining]);

  const run = async () => {
    setLoading(true);
    try {
      if (await onClick()) setRemaining(seconds);
    } finally {
      setLoading(false);
    }
  };
  return (
    <Button {...rest} loading={loading} disabled={rest.disabled || remaining > 0} onClick={() => void run()}>
      {remaining > 0 ? t('common.retryIn', { seconds: remaining }) : children}
    </Button>
  );
}
